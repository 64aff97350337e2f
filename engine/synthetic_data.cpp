// TrainScope's generated sample set: ten classes of procedurally drawn 32x32 images, written in the
// CIFAR-10 binary layout. Each image is a coverage mask (shape or texture, anti-aliased) blended
// between a background colour (with a weak gradient) and a foreground colour, then a random
// distractor blob and per-pixel noise. Every random choice comes from a counter-based hash of
// (seed, split, index), so the set is deterministic for a seed and independent of call order.
// Nothing here is copied from any dataset.
#include "engine/synthetic_data.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <numbers>
#include <random>
#include <system_error>

#include <unistd.h>

#include "base/errors.h"
#include "engine/batch.h"

namespace ts {
namespace {

constexpr int kSize = 32;
constexpr int kPixels = kSize * kSize;
constexpr float kPi = std::numbers::pi_v<float>;

/// SplitMix64 (Steele, Lea, Flood 2014): small, fast and fully specified, so images are identical on
/// every platform and standard library.
struct Rng {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  float uniform() { return static_cast<float>(next() >> 40) * (1.0f / 16777216.0f); }  // [0,1)
  float uniform(float lo, float hi) { return lo + (hi - lo) * uniform(); }
  int integer(int lo, int hi) { return lo + static_cast<int>(next() % static_cast<std::uint64_t>(hi - lo + 1)); }
};

std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  Rng r{a * 0xD1B54A32D192ED03ull ^ b};
  return r.next();
}

float dist(float dx, float dy) { return std::sqrt(dx * dx + dy * dy); }

/// Approximately N(0, 1): the sum of the four 16-bit parts of one draw (Irwin-Hall), standardised.
float gaussian(Rng& rng) {
  const std::uint64_t r = rng.next();
  const auto sum = static_cast<float>((r & 0xFFFF) + ((r >> 16) & 0xFFFF) + ((r >> 32) & 0xFFFF) + (r >> 48));
  return (sum - 131070.0f) * (1.0f / 37837.0f);
}

float clamp01(float v) { return std::clamp(v, 0.0f, 1.0f); }

/// Soft inside-test: 1 well inside (signed distance d > 0.5 px), 0 outside, linear ramp between.
float coverage(float signed_distance) { return clamp01(signed_distance + 0.5f); }

/// A random rectangle of the image that textures fill.
struct Region {
  float x0, y0, x1, y1;
  float inside(float x, float y) const {
    return std::min({coverage(x - x0), coverage(x1 - x), coverage(y - y0), coverage(y1 - y)});
  }
};

Region random_region(Rng& rng) {
  const float w = rng.uniform(14.0f, 32.0f), h = rng.uniform(14.0f, 32.0f);
  const float x0 = rng.uniform(0.0f, kSize - w), y0 = rng.uniform(0.0f, kSize - h);
  return {x0, y0, x0 + w, y0 + h};
}

using Mask = std::array<float, kPixels>;

template <typename F>
void fill_mask(Mask& mask, F&& f) {
  for (int y = 0; y < kSize; ++y)
    for (int x = 0; x < kSize; ++x) mask[y * kSize + x] = f(x + 0.5f, y + 0.5f);
}

void draw_stripes(Mask& mask, Rng& rng, bool horizontal) {
  const Region region = random_region(rng);
  const float period = rng.uniform(4.0f, 8.0f), phase = rng.uniform(0.0f, period);
  const float tilt = rng.uniform(-0.15f, 0.15f), c = std::cos(tilt), s = std::sin(tilt);
  fill_mask(mask, [&](float x, float y) {
    const float along = horizontal ? (y * c + x * s) : (x * c - y * s);
    const float u = (along + phase) / period, t = u - std::floor(u);  // phase in the period, [0,1)
    // Signed distance (px) to the nearest stripe edge: inside the stripe in the first half period.
    const float d = t < 0.5f ? std::min(t, 0.5f - t) : -std::min(t - 0.5f, 1.0f - t);
    return region.inside(x, y) * coverage(d * period);
  });
}

void draw_checkerboard(Mask& mask, Rng& rng) {
  const Region region = random_region(rng);
  const int cell = rng.integer(3, 6);
  const int ox = rng.integer(0, cell - 1), oy = rng.integer(0, cell - 1);
  fill_mask(mask, [&](float x, float y) {
    const int cx = (static_cast<int>(x) + ox) / cell, cy = (static_cast<int>(y) + oy) / cell;
    return region.inside(x, y) * static_cast<float>((cx + cy) & 1);
  });
}

void draw_triangle(Mask& mask, Rng& rng, float cx, float cy) {
  const float r = rng.uniform(6.0f, 12.0f), rot = rng.uniform(-0.4f, 0.4f);
  float nx[3], ny[3];  // outward edge normals; the apothem of an equilateral triangle is r/2
  for (int k = 0; k < 3; ++k) {
    const float a = rot + kPi / 2 + 2 * kPi * static_cast<float>(k) / 3;
    nx[k] = std::cos(a);
    ny[k] = std::sin(a);
  }
  fill_mask(mask, [&](float x, float y) {
    float d = 1e9f;
    for (int k = 0; k < 3; ++k) d = std::min(d, r * 0.5f - ((x - cx) * nx[k] + (y - cy) * ny[k]));
    return coverage(d);
  });
}

void draw_dots(Mask& mask, Rng& rng) {
  const Region region = random_region(rng);
  const int n = rng.integer(4, 9);
  float px[9], py[9], pr[9];
  for (int k = 0; k < n; ++k) {
    px[k] = rng.uniform(region.x0 + 2, region.x1 - 2);
    py[k] = rng.uniform(region.y0 + 2, region.y1 - 2);
    pr[k] = rng.uniform(1.3f, 2.5f);
  }
  fill_mask(mask, [&](float x, float y) {
    float a = 0;
    for (int k = 0; k < n; ++k) a = std::max(a, coverage(pr[k] - dist(x - px[k], y - py[k])));
    return a;
  });
}

/// The coverage mask of class `label` (0-9); uses its own draws from `rng`.
void draw_mask(int label, Rng& rng, Mask& mask) {
  const float cx = rng.uniform(10.0f, 22.0f), cy = rng.uniform(10.0f, 22.0f);
  switch (label) {
    case 0: {  // circle
      const float r = rng.uniform(5.0f, 11.0f);
      fill_mask(mask, [&](float x, float y) { return coverage(r - dist(x - cx, y - cy)); });
      break;
    }
    case 1: {  // square, slightly rotated
      const float h = rng.uniform(5.0f, 10.0f), rot = rng.uniform(-0.3f, 0.3f);
      const float c = std::cos(rot), s = std::sin(rot);
      fill_mask(mask, [&](float x, float y) {
        const float u = (x - cx) * c + (y - cy) * s, v = -(x - cx) * s + (y - cy) * c;
        return coverage(h - std::max(std::abs(u), std::abs(v)));
      });
      break;
    }
    case 2: draw_triangle(mask, rng, cx, cy); break;
    case 3: draw_stripes(mask, rng, true); break;
    case 4: draw_stripes(mask, rng, false); break;
    case 5: draw_checkerboard(mask, rng); break;
    case 6: {  // cross (plus sign)
      const float arm = rng.uniform(6.0f, 11.0f), half = rng.uniform(1.0f, 2.0f);
      fill_mask(mask, [&](float x, float y) {
        const float dx = std::abs(x - cx), dy = std::abs(y - cy);
        return std::max(coverage(std::min(half - dx, arm - dy)), coverage(std::min(half - dy, arm - dx)));
      });
      break;
    }
    case 7: {  // ring
      const float r = rng.uniform(6.0f, 11.0f), half = rng.uniform(0.8f, 1.8f);
      fill_mask(mask, [&](float x, float y) { return coverage(half - std::abs(dist(x - cx, y - cy) - r)); });
      break;
    }
    case 8: {  // diagonal gradient across the whole image
      const float a = kPi / 4 + kPi / 2 * static_cast<float>(rng.integer(0, 3)) + rng.uniform(-0.3f, 0.3f);
      const float c = std::cos(a), s = std::sin(a), width = rng.uniform(24.0f, 44.0f);
      fill_mask(mask, [&](float x, float y) { return clamp01(((x - cx) * c + (y - cy) * s) / width + 0.5f); });
      break;
    }
    default: draw_dots(mask, rng); break;
  }
}

/// Background and foreground colours with a random, but never vanishing, contrast.
void pick_colours(Rng& rng, float bg[3], float fg[3]) {
  for (int c = 0; c < 3; ++c) bg[c] = rng.uniform(0.0f, 255.0f);
  for (int attempt = 0; attempt < 8; ++attempt) {
    float dist = 0;
    for (int c = 0; c < 3; ++c) {
      fg[c] = rng.uniform(0.0f, 255.0f);
      dist += std::abs(fg[c] - bg[c]);
    }
    if (dist > 120.0f) return;
  }
  for (int c = 0; c < 3; ++c) fg[c] = bg[c] < 128.0f ? bg[c] + 110.0f : bg[c] - 110.0f;
}

void check_options(const SyntheticOptions& o) {
  if (o.train_files < 1 || o.train_files > 5) {
    throw InputError("synthetic data: train_files must be 1-5, got " + std::to_string(o.train_files));
  }
  if (o.train_images < o.train_files || o.test_images < 1) {
    throw InputError("synthetic data: need at least one image per file (train_images " +
                     std::to_string(o.train_images) + ", train_files " + std::to_string(o.train_files) +
                     ", test_images " + std::to_string(o.test_images) + ")");
  }
}

/// Fills `set` with `count` images; labels are balanced (i % 10) and shuffled with the split's seed.
void generate_split(ImageSet& set, std::int64_t count, std::uint64_t seed, std::uint64_t split) {
  set.labels.resize(static_cast<std::size_t>(count));
  set.images.resize(static_cast<std::size_t>(count) * kImageBytes);
  for (std::int64_t i = 0; i < count; ++i) set.labels[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(i % 10);
  std::mt19937_64 shuffle(mix(seed, split));
  for (std::int64_t i = count - 1; i > 0; --i) {
    const auto j = static_cast<std::int64_t>(shuffle() % static_cast<std::uint64_t>(i + 1));
    std::swap(set.labels[static_cast<std::size_t>(i)], set.labels[static_cast<std::size_t>(j)]);
  }
  for (std::int64_t i = 0; i < count; ++i) {
    draw_synthetic_image(set.labels[static_cast<std::size_t>(i)], mix(mix(seed, split), static_cast<std::uint64_t>(i)),
                         set.images.data() + i * kImageBytes);
  }
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

/// A name for a temporary sibling of `path` that no other process or thread uses.
std::string temporary_name(const std::filesystem::path& path) {
  static std::atomic<unsigned> counter{0};
  return path.string() + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

/// Writes the file under a temporary name and renames it into place, so a reader (another test
/// process, a second runner started at the same time) never sees a half-written file.
void write_file(const std::filesystem::path& path, const void* data, std::size_t bytes) {
  const std::string tmp = temporary_name(path);
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(tmp.c_str(), "wb"));
  if (!file) throw InputError("synthetic data: cannot create " + path.string());
  const bool ok = (bytes == 0 || std::fwrite(data, 1, bytes, file.get()) == bytes) & (std::fclose(file.release()) == 0);
  if (!ok || std::rename(tmp.c_str(), path.string().c_str()) != 0) {
    std::remove(tmp.c_str());
    throw InputError("synthetic data: write failed for " + path.string());
  }
}

/// Records [begin, end) of `set` in the CIFAR-10 binary layout.
std::vector<std::uint8_t> encode_records(const ImageSet& set, std::int64_t begin, std::int64_t end) {
  std::vector<std::uint8_t> out(static_cast<std::size_t>((end - begin) * kCifarRecordBytes));
  for (std::int64_t i = begin; i < end; ++i) {
    std::uint8_t* rec = out.data() + (i - begin) * kCifarRecordBytes;
    rec[0] = static_cast<std::uint8_t>(set.labels[static_cast<std::size_t>(i)]);
    std::copy_n(set.images.data() + i * kImageBytes, kImageBytes, rec + 1);
  }
  return out;
}

}  // namespace

const std::vector<std::string>& synthetic_class_names() {
  static const std::vector<std::string> names{
      "circle", "square", "triangle", "horizontal stripes", "vertical stripes",
      "checkerboard", "cross", "ring", "diagonal gradient", "dots"};
  return names;
}

void draw_synthetic_image(int label, std::uint64_t seed, std::uint8_t* out) {
  if (label < 0 || label > 9) throw InputError("synthetic data: label " + std::to_string(label) + " is not 0-9");
  Rng rng{seed};
  float bg[3], fg[3];
  pick_colours(rng, bg, fg);
  Mask mask;
  draw_mask(label, rng, mask);

  // Background variation: a weak linear gradient in a random direction.
  const float ga = rng.uniform(0.0f, 2 * kPi), gamp = rng.uniform(0.0f, 30.0f) / kSize;
  const float gx = std::cos(ga) * gamp, gy = std::sin(ga) * gamp;
  // A distractor blob in a third colour, in 30 % of the images.
  const bool blob = rng.uniform() < 0.3f;
  const float bx = rng.uniform(2.0f, 30.0f), by = rng.uniform(2.0f, 30.0f), br = rng.uniform(1.5f, 3.5f);
  float blob_colour[3];
  for (float& c : blob_colour) c = rng.uniform(0.0f, 255.0f);
  const float noise = rng.uniform(4.0f, 24.0f);

  // Composed in a local buffer: writes through uint8_t* `out` could alias the generator's state.
  std::array<std::uint8_t, kImageBytes> image;
  for (int y = 0; y < kSize; ++y) {
    for (int x = 0; x < kSize; ++x) {
      const int p = y * kSize + x;
      const float shade = (x - 16) * gx + (y - 16) * gy;
      const float a = mask[p];
      const float b = blob ? coverage(br - dist(x + 0.5f - bx, y + 0.5f - by)) : 0.0f;  // distractor
      for (int c = 0; c < 3; ++c) {
        float v = (bg[c] + shade) * (1 - a) + fg[c] * a;
        v = v * (1 - b) + blob_colour[c] * b;
        v += noise * gaussian(rng);
        image[c * kPixels + p] = static_cast<std::uint8_t>(std::clamp(v + 0.5f, 0.0f, 255.0f));
      }
    }
  }
  std::copy(image.begin(), image.end(), out);
}

Cifar10 make_synthetic_cifar(const SyntheticOptions& options) {
  check_options(options);
  Cifar10 result;
  generate_split(result.train, options.train_images, options.seed, 1);
  generate_split(result.test, options.test_images, options.seed, 2);
  result.class_names = synthetic_class_names();
  return result;
}

namespace {
void write_set_files(const std::filesystem::path& root, const Cifar10& set, const SyntheticOptions& options);
}  // namespace

void write_synthetic_cifar(const std::string& dir, const SyntheticOptions& options) {
  namespace fs = std::filesystem;
  const Cifar10 set = make_synthetic_cifar(options);
  std::error_code ec;
  const fs::path target(dir);
  if (!fs::exists(target, ec)) {
    // A new folder appears whole: written beside it, then renamed into place. When another writer
    // got there first, the rename fails and its (identical) files are overwritten atomically below.
    const fs::path tmp = temporary_name(target);
    fs::create_directories(tmp, ec);
    if (!ec) {
      write_set_files(tmp, set, options);
      fs::rename(tmp, target, ec);
      if (!ec) return;
      fs::remove_all(tmp, ec);
    }
  }
  fs::create_directories(target, ec);
  if (!fs::is_directory(target, ec)) throw InputError("synthetic data: cannot create folder " + dir);
  write_set_files(target, set, options);
}

namespace {

void write_set_files(const std::filesystem::path& root, const Cifar10& set, const SyntheticOptions& options) {
  const std::int64_t n = options.train_images, files = options.train_files;
  for (std::int64_t k = 0; k < files; ++k) {
    const auto records = encode_records(set.train, k * n / files, (k + 1) * n / files);
    write_file(root / ("data_batch_" + std::to_string(k + 1) + ".bin"), records.data(), records.size());
  }
  const auto test = encode_records(set.test, 0, set.test.count());
  write_file(root / "test_batch.bin", test.data(), test.size());

  std::string meta;
  for (const std::string& name : synthetic_class_names()) meta += name + "\n";
  meta += "\n";
  write_file(root / "batches.meta.txt", meta.data(), meta.size());
  const std::string readme =
      "TrainScope's generated sample set -- NOT CIFAR-10.\n"
      "Ten classes of procedurally drawn 32x32 images (" + std::to_string(options.train_images) +
      " training, " + std::to_string(options.test_images) + " test, seed " + std::to_string(options.seed) +
      "):\ncircle, square, triangle, horizontal stripes, vertical stripes, checkerboard, cross, ring,\n"
      "diagonal gradient, dots -- with random position, size, colours, background gradient, a\n"
      "distractor blob and noise. Generated by TrainScope (engine/synthetic_data.cpp); no image is\n"
      "copied from any dataset. The files use the CIFAR-10 binary layout: records of 1 label byte\n"
      "and 3072 pixel bytes (R, G, B planes of 32x32).\n";
  write_file(root / "README.txt", readme.data(), readme.size());
}

}  // namespace

}  // namespace ts
