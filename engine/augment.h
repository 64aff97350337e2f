// CIFAR-10 training augmentation on uint8 CHW images, as torchvision's RandomCrop(32, padding=4)
// followed by RandomHorizontalFlip: the data loader's workers run it on every image, so it is
// written as whole-row copies (memcpy, memset, a 32-byte reversal) rather than per-pixel tests.
#pragma once

#include <cstdint>

namespace ts {

/// Zero padding on each side before the crop (torchvision RandomCrop(32, padding=4)).
constexpr int kAugmentPad = 4;

/// out = hflip?(crop(pad(src, 4), top, left)) for one [3, 32, 32] uint8 image (3072 bytes each):
/// out[c][y][x] = src[c][y + top - 4][x' + left - 4], 0 outside src, where x' = 31 - x when `flip`.
/// top, left in [0, 8] (the crop's corner in the 40x40 padded image). src and out must not overlap.
void augment_image(const std::uint8_t* src, std::uint8_t* out, int top, int left, bool flip);

/// The same by the definition, pixel by pixel (the reference the tests and bench/ compare with).
void augment_image_reference(const std::uint8_t* src, std::uint8_t* out, int top, int left, bool flip);

}  // namespace ts
