// OutputStream: where an export writes, as a RapidJSON output stream (Put/Flush) and a plain text
// sink — a file, stdout ("-"), or a gzip file when the name ends in ".gz" (zlib). Buffered (64 KiB);
// a write error (disk full, file size limit) is remembered and thrown by close() or the next flush
// as one line naming the file, so a half-written export is never reported as done.
#pragma once
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace ts::prof::exporter {

class OutputStream {
 public:
  using Ch = char;  // RapidJSON's stream concept

  /// Opens `path` for writing ("-" = stdout; "*.gz" = gzip). Throws InputError (one line naming the
  /// file and the system's reason) when it cannot be created.
  explicit OutputStream(const std::string& path);
  ~OutputStream();
  OutputStream(const OutputStream&) = delete;
  OutputStream& operator=(const OutputStream&) = delete;

  void Put(char c) {
    if (used_ == buffer_.size()) drain();
    buffer_[used_++] = c;
  }
  void write(std::string_view s);
  /// Writes the buffer out (RapidJSON calls it at the end of a document). Throws ts::Error on a
  /// write error.
  void Flush();
  /// Flushes, then closes the file (finishing the gzip stream). Throws ts::Error when any write
  /// failed. Idempotent.
  void close();
  const std::string& path() const { return path_; }
  /// Bytes handed to the stream so far (before compression).
  std::size_t bytes() const { return written_ + used_; }

  // The rest of RapidJSON's stream concept (output streams never read).
  char Peek() const { return 0; }
  char Take() { return 0; }
  std::size_t Tell() const { return bytes(); }
  char* PutBegin() { return nullptr; }
  std::size_t PutEnd(char*) { return 0; }

 private:
  void drain();
  [[noreturn]] void fail(const std::string& why);
  std::string path_;
  std::FILE* file_ = nullptr;  // plain file or stdout
  void* gz_ = nullptr;         // gzFile
  bool is_stdout_ = false, closed_ = false;
  std::string error_;
  std::vector<char> buffer_;
  std::size_t used_ = 0, written_ = 0;
};

}  // namespace ts::prof::exporter
