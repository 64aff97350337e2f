// TrainScope's own small offline dataset: ten classes of procedurally drawn 32x32 images (shapes,
// colours, textures with random position, size, colour jitter and noise) written in the CIFAR-10
// binary layout, so every code path that reads CIFAR-10 reads it too. Generated, never copied from
// anywhere. It is the embedded default of the first run and of the fast tests; it is NOT CIFAR-10.
#pragma once
#include <cstdint>
#include <string>

#include "engine/cifar10.h"

namespace ts {

struct SyntheticOptions {
  std::int64_t train_images = 5000;  // split over data_batch_1..train_files
  std::int64_t test_images = 1000;
  int train_files = 5;
  std::uint64_t seed = 1;
};

/// The class names of the synthetic set, in label order.
const std::vector<std::string>& synthetic_class_names();

/// Draws one image of class `label` (0-9) with variation from `seed` into `out` (3072 bytes, R, G, B planes).
void draw_synthetic_image(int label, std::uint64_t seed, std::uint8_t* out);

/// Generates the set in memory.
Cifar10 make_synthetic_cifar(const SyntheticOptions& options);

/// Writes data_batch_1..N.bin, test_batch.bin, batches.meta.txt and a README.txt saying what it
/// is into `dir` (created if needed). Throws InputError when the folder cannot be written.
void write_synthetic_cifar(const std::string& dir, const SyntheticOptions& options);

}  // namespace ts
