// The importer's byte sources (gzip/plain file, memory) and the cleaning JSON input stream
// (see json_input.h).
#include "profiling/import/json_input.h"

#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <algorithm>
#include <utility>

#include "base/capped_read.h"
#include "base/errors.h"

namespace ts::prof::import {

namespace {

constexpr std::size_t kBlock = 256 * 1024;

/// A file or memory through base's CappedInput: gzip inflated (detected from its magic), plain
/// passed through, the decompressed text capped.
class CappedSource final : public ByteSource {
 public:
  template <class... A>
  explicit CappedSource(A&&... a) : in_(std::forward<A>(a)...) {}
  std::size_t read(char* buf, std::size_t n) override { return in_.read(buf, n); }
  std::int64_t position() const override { return in_.position(); }
  std::int64_t total() const override { return in_.total(); }
  bool truncated() const override { return in_.truncated(); }

 private:
  CappedInput in_;
};

}  // namespace

std::unique_ptr<ByteSource> open_file_source(const std::string& path, std::int64_t max_text_bytes) {
  return std::make_unique<CappedSource>(path, max_text_bytes, "trace");
}

std::unique_ptr<ByteSource> open_memory_source(const void* data, std::size_t size, const std::string& name,
                                               std::int64_t max_text_bytes) {
  return std::make_unique<CappedSource>(data, size, name, max_text_bytes, "trace");
}

JsonInput::JsonInput(ByteSource& source, Tick tick, std::int64_t max_string_bytes)
    : source_(source), tick_(std::move(tick)), buffer_(kBlock + 8), max_string_(max_string_bytes) {
  current_ = last_ = buffer_.data();
  refill();
}

void JsonInput::refill() {
  char* b = buffer_.data();
  consumed_ += static_cast<std::int64_t>(block_n_);  // the block just read
  std::memcpy(b, carry_, carry_n_);
  std::size_t n = carry_n_;
  carry_n_ = 0;
  bool end = false;
  while (n < kBlock) {
    const std::size_t r = source_.read(b + n, kBlock - n);
    if (r == 0) {
      end = true;
      break;
    }
    n += r;
  }
  if (tick_ && !tick_(source_.position(), source_.total())) {
    stopped_ = true;
    n = 0;
    end = true;
  }
  n = clean(b, n, end);
  if (long_string_at_ >= 0) {  // the text ends where the overlong string began
    n = static_cast<std::size_t>(std::max<std::int64_t>(0, long_string_at_ - consumed_));
    end = true;
  }
  if (end || n == 0) {
    b[n] = '\0';
    last_ = b + n;
    eof_ = true;
  } else {
    last_ = b + n - 1;
  }
  current_ = b;
  block_n_ = n;
}

namespace {

/// Index of the first byte in [i, n) that the cleaner must look at: inside a string '"', '\\' or
/// a control character; outside also 'n' and 'i' (nan / inf). 16 bytes at a time with SSE2.
std::size_t next_special(const char* p, std::size_t i, std::size_t n, bool in_string) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), lo = _mm_set1_epi8(0x1f);
  const __m128i n_ = _mm_set1_epi8('n'), i_ = _mm_set1_epi8('i');
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    // v <= 0x1f as unsigned: max(v, 0x1f) == 0x1f
    __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(_mm_max_epu8(v, lo), lo));
    hit = _mm_or_si128(hit, in_string ? _mm_cmpeq_epi8(v, bslash) : _mm_or_si128(_mm_cmpeq_epi8(v, n_), _mm_cmpeq_epi8(v, i_)));
    const int mask = _mm_movemask_epi8(hit);
    if (mask != 0) return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
#endif
  for (; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(p[i]);
    if (c == '"' || c < 0x20 || (in_string ? c == '\\' : (c == 'n' || c == 'i'))) return i;
  }
  return n;
}

}  // namespace

std::size_t JsonInput::clean(char* p, std::size_t n, bool final_block) {
  auto replace = [&](std::size_t i) {
    p[i] = ' ';
    if (control_chars_++ == 0) first_control_ = consumed_ + static_cast<std::int64_t>(i);
  };
  for (std::size_t i = 0; i < n; ++i) {
    if (escape_) {  // the character after a backslash inside a string
      escape_ = false;
      if (static_cast<unsigned char>(p[i]) < 0x20) replace(i);
      continue;
    }
    i = next_special(p, i, n, in_string_);
    if (i >= n) break;
    const unsigned char c = static_cast<unsigned char>(p[i]);
    if (in_string_) {
      if (c == '\\') escape_ = true;
      else if (c == '"') in_string_ = false;
      else replace(i);  // a raw control character inside a string
      if (consumed_ + static_cast<std::int64_t>(i) - string_start_ > max_string_) {
        long_string_at_ = string_start_;
        return n;
      }
      continue;
    }
    if (c == '"') {
      in_string_ = true;
      string_start_ = consumed_ + static_cast<std::int64_t>(i);
    } else if (c < 0x20) {
      if (c != '\t' && c != '\n' && c != '\r') replace(i);
    } else {  // 'n' or 'i'
      if (i + 2 >= n && !final_block) {  // the token may continue in the next block
        carry_n_ = n - i;
        std::memcpy(carry_, p + i, carry_n_);
        return i;
      }
      if (i + 2 < n && c == 'n' && p[i + 1] == 'a' && p[i + 2] == 'n') {
        p[i] = 'N', p[i + 2] = 'N', ++nan_inf_;
      } else if (i + 2 < n && c == 'i' && p[i + 1] == 'n' && p[i + 2] == 'f') {
        p[i] = 'I', ++nan_inf_;
      }
    }
  }
  if (in_string_ && consumed_ + static_cast<std::int64_t>(n) - string_start_ > max_string_) long_string_at_ = string_start_;
  return n;
}

}  // namespace ts::prof::import
