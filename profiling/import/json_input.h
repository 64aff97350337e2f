// The importer's input: bytes from a file (zlib's gzread: gzip or plain, detected from the content)
// or from memory (inflate when it starts with the gzip magic), offered to RapidJSON's SAX reader as
// an input stream one 256 KiB block at a time. Each block is cleaned up before the reader sees it,
// so that traces real tools write still parse:
//   - raw control characters (< 0x20) inside strings, and NUL anywhere, become spaces (counted);
//   - bare lowercase nan / inf / -inf (fmt's spelling, found in Kineto traces) become NaN / Inf,
//     which RapidJSON reads as non-finite numbers with kParseNanAndInfFlag.
// Tell() counts bytes of the JSON text (decompressed), the offsets errors and warnings name.
// The bytes come through base/capped_read.h: regular files only, the decompressed text capped (a
// small .json.gz that inflates to gigabytes stops at the cap), and one string at most a given length
// (a 4 GiB string in a 4 MB file is refused at the limit, not buffered whole by the JSON reader).
#pragma once
#include <cstddef>
#include <climits>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ts::prof::import {

/// Raw bytes, decompressed. read() returns 0 at the end; throws InputError on a read/gzip error.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual std::size_t read(char* buf, std::size_t n) = 0;
  /// Bytes of the underlying file/buffer consumed so far (compressed for gzip) and its size.
  virtual std::int64_t position() const = 0;
  virtual std::int64_t total() const = 0;
  /// The gzip stream ended before its end marker (after read() returned 0).
  virtual bool truncated() const = 0;
};

/// Opens `path`, a regular file; throws InputError naming it when it cannot be opened, is no
/// regular file, or when its text (decompressed) grows past `max_text_bytes` while it is read.
std::unique_ptr<ByteSource> open_file_source(const std::string& path, std::int64_t max_text_bytes);
/// Reads `data` (not copied; must outlive the source); the same cap on the decompressed text.
std::unique_ptr<ByteSource> open_memory_source(const void* data, std::size_t size, const std::string& name,
                                               std::int64_t max_text_bytes);

/// RapidJSON input stream (the Stream concept: Peek, Take, Tell; Put* unused) over a ByteSource.
class JsonInput {
 public:
  typedef char Ch;
  using Tick = std::function<bool(std::int64_t done, std::int64_t total)>;  // false: stop (cancel)

  /// `max_string_bytes`: the longest JSON string (bytes between its quotes) let through; a longer
  /// one ends the text there and string_too_long() says where it started.
  explicit JsonInput(ByteSource& source, Tick tick = {}, std::int64_t max_string_bytes = INT64_MAX);
  Ch Peek() const { return *current_; }
  Ch Take() {
    const Ch c = *current_;
    if (current_ < last_) ++current_;
    else if (!eof_) refill();  // at the end current_ stays on the '\0' after the text
    return c;
  }
  std::size_t Tell() const { return static_cast<std::size_t>(consumed_ + (current_ - buffer_.data())); }
  Ch* PutBegin() { return nullptr; }
  void Put(Ch) {}
  void Flush() {}
  std::size_t PutEnd(Ch*) { return 0; }

  bool eof() const { return eof_; }
  bool stopped() const { return stopped_; }
  /// Control characters replaced; offset of the first (-1 none).
  std::int64_t control_chars() const { return control_chars_; }
  std::int64_t first_control_offset() const { return first_control_; }
  std::int64_t nan_inf_rewritten() const { return nan_inf_; }
  /// The offset where a string longer than max_string_bytes began (-1: none); the text ended there.
  std::int64_t string_too_long() const { return long_string_at_; }
  std::int64_t max_string_bytes() const { return max_string_; }

 private:
  void refill();
  std::size_t clean(char* p, std::size_t n, bool final_block);
  ByteSource& source_;
  Tick tick_;
  std::vector<char> buffer_;
  Ch* current_ = nullptr;
  Ch* last_ = nullptr;  // the last valid character of the block
  std::int64_t consumed_ = 0;  // bytes of the text before buffer_[0]
  std::size_t block_n_ = 0;    // bytes of text in the current block
  char carry_[4] = {};
  std::size_t carry_n_ = 0;
  bool eof_ = false, stopped_ = false;
  bool in_string_ = false, escape_ = false;
  std::int64_t control_chars_ = 0, first_control_ = -1, nan_inf_ = 0;
  std::int64_t ticks_ = 0, last_tick_pos_ = -1;
  std::int64_t max_string_ = INT64_MAX, string_start_ = 0, long_string_at_ = -1;
};

}  // namespace ts::prof::import
