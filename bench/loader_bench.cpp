// The data loader's headroom: crop + flip + pack of uint8 CIFAR images (engine/augment.h) on one
// thread, the row-wise code beside the pixel-by-pixel definition it replaced (printed as a ratio),
// then the whole DataLoader (gather, augment, labels, hand-off) with N workers and a consumer that
// takes batches as fast as they come. Normalisation is not here: it runs on the GPU.
//   loader_bench [--images N] [--workers W] [--batch B] [--seconds S]
// Prints img/s and img/s per worker; the target is >= 100,000 img/s per worker thread.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/augment.h"
#include "engine/batch.h"
#include "engine/cifar10.h"
#include "engine/data_loader.h"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Images per second of `fn` over the set, repeated for at least `seconds`.
template <class Fn>
double rate(const ts::ImageSet& set, double seconds, Fn&& fn) {
  std::vector<std::uint8_t> out(ts::kImageBytes * 128);
  std::mt19937 rng(1);
  std::int64_t done = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (seconds_since(t0) < seconds)
    for (std::int64_t i = 0; i < set.count(); ++i, ++done) {
      const auto h = rng();
      fn(set.images.data() + i * ts::kImageBytes, out.data() + (i % 128) * ts::kImageBytes, static_cast<int>(h % 9),
         static_cast<int>((h >> 8) % 9), ((h >> 16) & 1) != 0);
    }
  return static_cast<double>(done) / seconds_since(t0);
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t images = 50000, batch = 128;
  int workers = 4;
  double seconds = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--images") images = std::atoll(argv[i + 1]);
    else if (a == "--workers") workers = std::atoi(argv[i + 1]);
    else if (a == "--batch") batch = std::atoll(argv[i + 1]);
    else if (a == "--seconds") seconds = std::atof(argv[i + 1]);
    else { std::fprintf(stderr, "loader_bench: unknown option %s\n", a.c_str()); return 2; }
  }
  ts::ImageSet set;
  set.images.resize(static_cast<std::size_t>(images) * ts::kImageBytes);
  set.labels.resize(static_cast<std::size_t>(images));
  std::mt19937 rng(0);
  for (auto& v : set.images) v = static_cast<std::uint8_t>(rng());
  for (std::size_t i = 0; i < set.labels.size(); ++i) set.labels[i] = static_cast<std::int32_t>(i % 10);

  const double fast = rate(set, seconds, ts::augment_image);
  const double ref = rate(set, seconds, ts::augment_image_reference);
  std::printf("augment, one thread: row-wise %.0f img/s, pixel-wise %.0f img/s: %.2fx\n", fast, ref, fast / ref);

  ts::LoaderOptions o;
  o.batch_size = batch;
  o.num_workers = workers;
  o.augment = true;
  ts::DataLoader loader(set, o);
  std::int64_t delivered = 0;
  int epochs = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (seconds_since(t0) < seconds) {
    loader.start_epoch(epochs++);
    while (const ts::Batch* b = loader.next()) delivered += b->size;
  }
  const double total = static_cast<double>(delivered) / seconds_since(t0);
  std::printf("DataLoader --augment, %d workers, batch %lld: %.0f img/s, %.0f img/s per worker (%d epochs)\n", workers,
              static_cast<long long>(batch), total, total / std::max(1, workers), epochs);
  std::printf("per-worker target 100000 img/s: %s\n", fast >= 100000 ? "met (one thread)" : "NOT met (one thread)");
  return 0;
}
