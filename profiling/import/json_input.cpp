// The importer's byte sources (gzip/plain file, memory) and the cleaning JSON input stream
// (see json_input.h).
#include "profiling/import/json_input.h"

#include <zlib.h>

#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <filesystem>

#include "base/errors.h"

namespace ts::prof::import {

namespace {

constexpr std::size_t kBlock = 256 * 1024;

/// A file through zlib: gzread decompresses gzip and passes plain files through unchanged.
class FileSource final : public ByteSource {
 public:
  explicit FileSource(const std::string& path) : path_(path) {
    std::error_code ec;
    total_ = static_cast<std::int64_t>(std::filesystem::file_size(path, ec));
    if (ec) throw InputError("trace " + path + ": cannot open: " + ec.message());
    file_ = gzopen(path.c_str(), "rb");
    if (!file_) throw InputError("trace " + path + ": cannot open: " + std::strerror(errno));
    gzbuffer(file_, 256 * 1024);
  }
  ~FileSource() override {
    if (file_) gzclose(file_);
  }
  std::size_t read(char* buf, std::size_t n) override {
    if (done_) return 0;
    const int r = gzread(file_, buf, static_cast<unsigned>(n));
    int err = Z_OK;
    const char* msg = gzerror(file_, &err);
    if (r < 0 || (err != Z_OK && err != Z_BUF_ERROR))
      throw InputError("trace " + path_ + ": cannot read (" + (msg ? msg : "zlib error") + ") near compressed byte " +
                       std::to_string(gzoffset(file_)));
    if (r == 0) {
      done_ = true;
      truncated_ = err == Z_BUF_ERROR;  // "unexpected end of file": the gzip stream was cut short
    }
    return static_cast<std::size_t>(r);
  }
  std::int64_t position() const override { return done_ ? total_ : static_cast<std::int64_t>(gzoffset(file_)); }
  std::int64_t total() const override { return total_; }
  bool truncated() const override { return truncated_; }

 private:
  std::string path_;
  gzFile file_ = nullptr;
  std::int64_t total_ = 0;
  bool done_ = false, truncated_ = false;
};

/// Memory: inflated when it starts with the gzip magic (1f 8b), else passed through.
class MemorySource final : public ByteSource {
 public:
  MemorySource(const void* data, std::size_t size, std::string name)
      : data_(static_cast<const unsigned char*>(data)), size_(size), name_(std::move(name)) {
    gzip_ = size >= 2 && data_[0] == 0x1f && data_[1] == 0x8b;
    if (gzip_) {
      if (inflateInit2(&z_, 15 + 32) != Z_OK) throw InputError("trace " + name_ + ": zlib could not start");
      z_.next_in = const_cast<unsigned char*>(data_);
      z_.avail_in = static_cast<uInt>(size);
    }
  }
  ~MemorySource() override {
    if (gzip_) inflateEnd(&z_);
  }
  std::size_t read(char* buf, std::size_t n) override {
    if (!gzip_) {
      const std::size_t k = std::min(n, size_ - pos_);
      std::memcpy(buf, data_ + pos_, k);
      pos_ += k;
      return k;
    }
    if (ended_) return 0;
    z_.next_out = reinterpret_cast<unsigned char*>(buf);
    z_.avail_out = static_cast<uInt>(n);
    while (z_.avail_out > 0) {
      if (z_.avail_in == 0) {  // input ends before the gzip trailer
        truncated_ = !stream_end_;
        ended_ = true;
        break;
      }
      const int rc = inflate(&z_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        stream_end_ = true;
        if (z_.avail_in == 0) { ended_ = true; break; }
        inflateReset(&z_);  // a further gzip member follows
        stream_end_ = false;
        continue;
      }
      if (rc == Z_BUF_ERROR && z_.avail_in == 0) continue;
      if (rc != Z_OK)
        throw InputError("trace " + name_ + ": gzip data error (" + (z_.msg ? z_.msg : "inflate failed") +
                         ") near compressed byte " + std::to_string(size_ - z_.avail_in));
    }
    return n - z_.avail_out;
  }
  std::int64_t position() const override {
    return static_cast<std::int64_t>(gzip_ ? size_ - z_.avail_in : pos_);
  }
  std::int64_t total() const override { return static_cast<std::int64_t>(size_); }
  bool truncated() const override { return truncated_; }

 private:
  const unsigned char* data_;
  std::size_t size_, pos_ = 0;
  std::string name_;
  bool gzip_ = false, ended_ = false, stream_end_ = false, truncated_ = false;
  z_stream z_{};
};

}  // namespace

std::unique_ptr<ByteSource> open_file_source(const std::string& path) { return std::make_unique<FileSource>(path); }

std::unique_ptr<ByteSource> open_memory_source(const void* data, std::size_t size, const std::string& name) {
  return std::make_unique<MemorySource>(data, size, name);
}

JsonInput::JsonInput(ByteSource& source, Tick tick) : source_(source), tick_(std::move(tick)), buffer_(kBlock + 8) {
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
      continue;
    }
    if (c == '"') {
      in_string_ = true;
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
  return n;
}

}  // namespace ts::prof::import
