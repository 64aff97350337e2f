// Tests of TrainScope's generated sample set (engine/synthetic_data.h): determinism per seed,
// balanced labels, variation inside a class, speed of the default set, the files it writes and the
// option checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "base/errors.h"
#include "engine/synthetic_data.h"

namespace fs = std::filesystem;

namespace {

ts::SyntheticOptions small(std::uint64_t seed) {
  ts::SyntheticOptions o;
  o.train_images = 200;
  o.test_images = 50;
  o.seed = seed;
  return o;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Mean absolute difference per byte of two 3072-byte images.
double mean_abs_diff(const std::uint8_t* a, const std::uint8_t* b) {
  double sum = 0;
  for (int k = 0; k < 3072; ++k) sum += std::abs(int(a[k]) - int(b[k]));
  return sum / 3072;
}

}  // namespace

TEST(Synthetic, DeterministicForASeed) {
  const ts::Cifar10 a = ts::make_synthetic_cifar(small(3));
  const ts::Cifar10 b = ts::make_synthetic_cifar(small(3));
  const ts::Cifar10 c = ts::make_synthetic_cifar(small(4));
  EXPECT_EQ(a.train.images, b.train.images);
  EXPECT_EQ(a.train.labels, b.train.labels);
  EXPECT_EQ(a.test.images, b.test.images);
  EXPECT_NE(a.train.images, c.train.images);
  EXPECT_NE(a.train.images, std::vector<std::uint8_t>(a.train.images.size(), 0));
  std::uint8_t x[3072], y[3072];
  ts::draw_synthetic_image(5, 99, x);
  ts::draw_synthetic_image(5, 99, y);
  EXPECT_TRUE(std::equal(x, x + 3072, y));
}

TEST(Synthetic, DefaultSetHasBalancedLabelsAndIsFast) {
  const auto t0 = std::chrono::steady_clock::now();
  const ts::Cifar10 set = ts::make_synthetic_cifar(ts::SyntheticOptions{});
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "[ INFO     ] default synthetic set (5000 + 1000 images) in " << ms << " ms\n";
#ifdef NDEBUG  // optimised builds only: a debug or sanitizer build is several times slower
  EXPECT_LT(ms, 1000.0);
#endif
  ASSERT_EQ(set.train.count(), 5000);
  ASSERT_EQ(set.test.count(), 1000);
  std::vector<int> per_class(10, 0);
  for (std::int32_t label : set.train.labels) {
    ASSERT_GE(label, 0);
    ASSERT_LE(label, 9);
    ++per_class[label];
  }
  for (int c = 0; c < 10; ++c) EXPECT_EQ(per_class[c], 500) << "class " << c;
  // Labels are shuffled, not 0,1,2,...,9 repeated.
  int in_sequence = 0;
  for (int i = 0; i < 100; ++i) in_sequence += set.train.labels[i] == i % 10;
  EXPECT_LT(in_sequence, 50);
  EXPECT_EQ(set.class_names, ts::synthetic_class_names());
}

TEST(Synthetic, ImagesOfAClassVaryAndClassesDiffer) {
  // Images of one class differ clearly (position, size, colours, noise): not a memorisable template.
  std::uint8_t a[3072], b[3072];
  for (int label = 0; label < 10; ++label) {
    double total = 0;
    for (std::uint64_t s = 0; s < 20; ++s) {
      ts::draw_synthetic_image(label, 1000 + s, a);
      ts::draw_synthetic_image(label, 2000 + s, b);
      total += mean_abs_diff(a, b);
    }
    EXPECT_GT(total / 20, 20.0) << "class " << label << " varies too little";
  }
  // Same seed, different class: the colours are shared, the drawing is not.
  for (int label = 1; label < 10; ++label) {
    ts::draw_synthetic_image(0, 77, a);
    ts::draw_synthetic_image(label, 77, b);
    EXPECT_GT(mean_abs_diff(a, b), 1.0) << "class " << label;
  }
  // Noise: the image is never a flat two-colour drawing.
  ts::draw_synthetic_image(1, 5, a);
  std::set<std::uint8_t> values(a, a + 1024);
  EXPECT_GT(values.size(), 8u);
}

TEST(Synthetic, RejectsBadLabelAndOptions) {
  std::uint8_t out[3072];
  EXPECT_THROW(ts::draw_synthetic_image(10, 1, out), ts::InputError);
  EXPECT_THROW(ts::draw_synthetic_image(-1, 1, out), ts::InputError);
  ts::SyntheticOptions o;
  o.train_files = 6;
  EXPECT_THROW(ts::make_synthetic_cifar(o), ts::InputError);
  o = ts::SyntheticOptions{};
  o.train_images = 3;  // fewer images than files: a file would be empty
  EXPECT_THROW(ts::make_synthetic_cifar(o), ts::InputError);
  o = ts::SyntheticOptions{};
  o.test_images = 0;
  EXPECT_THROW(ts::make_synthetic_cifar(o), ts::InputError);
}

TEST(Synthetic, WritesCifarLayoutMetaAndReadme) {
  const fs::path dir = fs::temp_directory_path() / ("ts_synth_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  ts::SyntheticOptions o = small(9);
  o.train_images = 103;  // uneven split over 5 files: 20, 21, 20, 21, 21
  o.train_files = 5;
  ts::write_synthetic_cifar((dir / "nested").string(), o);
  std::int64_t train_bytes = 0;
  for (int n = 1; n <= 5; ++n) {
    const auto size = fs::file_size(dir / "nested" / ("data_batch_" + std::to_string(n) + ".bin"));
    EXPECT_EQ(size % ts::kCifarRecordBytes, 0u);
    EXPECT_GT(size, 0u);
    train_bytes += static_cast<std::int64_t>(size);
  }
  EXPECT_EQ(train_bytes, 103 * ts::kCifarRecordBytes);
  EXPECT_EQ(fs::file_size(dir / "nested" / "test_batch.bin"), 50u * ts::kCifarRecordBytes);
  EXPECT_FALSE(fs::exists(dir / "nested" / "data_batch_6.bin"));
  const std::string meta = read_text(dir / "nested" / "batches.meta.txt");
  EXPECT_EQ(meta.rfind("circle\nsquare\n", 0), 0u) << meta;
  EXPECT_NE(meta.find("dots\n"), std::string::npos);
  const std::string readme = read_text(dir / "nested" / "README.txt");
  EXPECT_NE(readme.find("TrainScope"), std::string::npos);
  EXPECT_NE(readme.find("NOT CIFAR-10"), std::string::npos);
  // A regular file where the folder should be: a clear InputError.
  std::ofstream(dir / "blocker") << "x";
  EXPECT_THROW(ts::write_synthetic_cifar((dir / "blocker").string(), o), ts::InputError);
  fs::remove_all(dir);
}

// Several processes (parallel ctest, two runners started together) may write the sample set into the
// same folder at once: a reader must never see a half-written file, and no temporary files remain.
TEST(SyntheticConcurrency, ConcurrentWritersAndReaderSeeWholeFiles) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("ts_synth_concurrent_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  ts::SyntheticOptions o;
  o.train_images = 600;
  o.test_images = 100;
  std::atomic<bool> done{false};
  std::atomic<int> bad_loads{0}, good_loads{0};
  std::thread reader([&] {
    while (!done.load()) {
      const bool existed = fs::exists(dir);  // once it exists it is whole (renamed into place)
      try {
        const auto set = ts::load_cifar10(dir.string());
        if (set.train.count() == 600 && set.test.count() == 100) ++good_loads;
        else ++bad_loads;
      } catch (const ts::InputError& e) {
        if (existed) ++bad_loads;  // before the folder appears, "does not exist" is right
        (void)e;
      }
    }
  });
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w)
    writers.emplace_back([&] { for (int k = 0; k < 3; ++k) ts::write_synthetic_cifar(dir.string(), o); });
  for (auto& t : writers) t.join();
  done = true;
  reader.join();
  EXPECT_EQ(bad_loads.load(), 0);
  EXPECT_EQ(ts::load_cifar10(dir.string()).train.count(), 600);
  for (const auto& e : fs::directory_iterator(dir.parent_path()))
    EXPECT_EQ(e.path().filename().string().find("ts_synth_concurrent_" + std::to_string(::getpid()) + ".tmp"),
              std::string::npos) << e.path();
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().find(".tmp-"), std::string::npos) << e.path();
  fs::remove_all(dir);
}
