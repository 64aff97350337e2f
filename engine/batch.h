// A batch as the data loader hands it to a backend: uint8 images in the CIFAR-10 binary layout
// (per image 3 planes R, G, B of 32x32, i.e. NCHW) and int32 labels, in host memory that is pinned
// when pin_memory is on. Backends normalise on their side ((x/255 - mean)/std), so the copy to the
// GPU moves 1 byte per pixel instead of 4.
#pragma once
#include <array>
#include <cstdint>

namespace ts {

constexpr int kImageChannels = 3, kImageHeight = 32, kImageWidth = 32;
constexpr int kImageBytes = kImageChannels * kImageHeight * kImageWidth;  // 3072

struct Batch {
  std::int64_t size = 0;                 // images in this batch (the last one may be short)
  const std::uint8_t* images = nullptr;  // [size, 3, 32, 32] uint8
  const std::int32_t* labels = nullptr;  // [size], 0..9
  bool pinned = false;                   // images/labels are in page-locked memory
  std::int64_t epoch = 0, index = 0;     // which batch of which epoch (0-based)
};

/// Per-channel normalisation x' = (x/255 - mean[c]) / std[c]. The default is the seed's
/// transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5)).
struct Normalization {
  std::array<float, 3> mean{0.5f, 0.5f, 0.5f};
  std::array<float, 3> std{0.5f, 0.5f, 0.5f};
};

}  // namespace ts
