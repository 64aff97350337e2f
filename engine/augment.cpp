// Pad-crop-flip of uint8 CIFAR images by rows (augment.h).
#include "engine/augment.h"

#include <algorithm>
#include <cstring>

#include "engine/batch.h"

namespace ts {
namespace {

static_assert(kImageWidth == 32, "the row reversal below is written for 32-byte rows");

/// rev[i] = row[31 - i]: four 8-byte words, each byte-swapped, in reverse order.
void reverse_row(const std::uint8_t* row, std::uint8_t* rev) {
  std::uint64_t w[4];
  std::memcpy(w, row, sizeof w);
  for (int k = 0; k < 4; ++k) {
    const std::uint64_t r = __builtin_bswap64(w[3 - k]);
    std::memcpy(rev + 8 * k, &r, sizeof r);
  }
}

}  // namespace

void augment_image(const std::uint8_t* src, std::uint8_t* out, int top, int left, bool flip) {
  const int dy = top - kAugmentPad, dx = left - kAugmentPad;
  // Output columns [x0, x1) read source columns (flip ? 31 - x : x) + dx inside [0, 32); the rest are
  // padding. Read from the reversed row when flipped: rev[x - dx] = row[31 - x + dx].
  const int shift = flip ? -dx : dx;
  const int x0 = std::max(0, -shift), x1 = std::min(kImageWidth, kImageWidth - shift);
  const int y0 = std::max(0, -dy), y1 = std::min(kImageHeight, kImageHeight - dy);
  std::uint8_t rev[kImageWidth];
  for (int c = 0; c < kImageChannels; ++c) {
    const std::uint8_t* plane = src + c * kImageHeight * kImageWidth;
    std::uint8_t* dst = out + c * kImageHeight * kImageWidth;
    if (y0 > 0) std::memset(dst, 0, static_cast<std::size_t>(y0) * kImageWidth);
    if (y1 < kImageHeight) std::memset(dst + y1 * kImageWidth, 0, static_cast<std::size_t>(kImageHeight - y1) * kImageWidth);
    for (int y = y0; y < y1; ++y) {
      const std::uint8_t* srow = plane + (y + dy) * kImageWidth;
      if (flip) {
        reverse_row(srow, rev);
        srow = rev;
      }
      std::uint8_t* row = dst + y * kImageWidth;
      if (x0 > 0) std::memset(row, 0, static_cast<std::size_t>(x0));
      std::memcpy(row + x0, srow + x0 + shift, static_cast<std::size_t>(x1 - x0));
      if (x1 < kImageWidth) std::memset(row + x1, 0, static_cast<std::size_t>(kImageWidth - x1));
    }
  }
}

void augment_image_reference(const std::uint8_t* src, std::uint8_t* out, int top, int left, bool flip) {
  for (int c = 0; c < kImageChannels; ++c)
    for (int y = 0; y < kImageHeight; ++y)
      for (int x = 0; x < kImageWidth; ++x) {
        const int sy = y + top - kAugmentPad, sx = (flip ? kImageWidth - 1 - x : x) + left - kAugmentPad;
        const bool in = sy >= 0 && sy < kImageHeight && sx >= 0 && sx < kImageWidth;
        out[(c * kImageHeight + y) * kImageWidth + x] = in ? src[(c * kImageHeight + sy) * kImageWidth + sx] : 0;
      }
}

}  // namespace ts
