// The importer's input: bytes from a file (zlib's gzread: gzip or plain, detected from the content)
// or from memory (inflate when it starts with the gzip magic), offered to RapidJSON's SAX reader as
// an input stream one 256 KiB block at a time. Each block is cleaned up before the reader sees it,
// so that traces real tools write still parse:
//   - raw control characters (< 0x20) inside strings, and NUL anywhere, become spaces (counted);
//   - bare lowercase nan / inf / -inf (fmt's spelling, found in Kineto traces) become NaN / Inf,
//     which RapidJSON reads as non-finite numbers with kParseNanAndInfFlag.
// Tell() counts bytes of the JSON text (decompressed), the offsets errors and warnings name.
#pragma once
#include <cstddef>
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

/// Opens `path`; throws InputError naming it when it cannot be opened.
std::unique_ptr<ByteSource> open_file_source(const std::string& path);
/// Reads `data` (not copied; must outlive the source).
std::unique_ptr<ByteSource> open_memory_source(const void* data, std::size_t size, const std::string& name);

/// RapidJSON input stream (the Stream concept: Peek, Take, Tell; Put* unused) over a ByteSource.
class JsonInput {
 public:
  typedef char Ch;
  using Tick = std::function<bool(std::int64_t done, std::int64_t total)>;  // false: stop (cancel)

  explicit JsonInput(ByteSource& source, Tick tick = {});
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
};

}  // namespace ts::prof::import
