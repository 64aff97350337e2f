// OutputStream (output_stream.h): buffered writes to a file, stdout or a gzip file.
#include "profiling/export/output_stream.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>

#include "base/errors.h"

namespace ts::prof::exporter {

namespace {
bool ends_with(const std::string& s, const char* suffix) {
  const std::size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}
}  // namespace

OutputStream::OutputStream(const std::string& path) : path_(path), buffer_(std::size_t{1} << 16) {
  if (path == "-") {
    file_ = stdout;
    is_stdout_ = true;
    return;
  }
  if (ends_with(path, ".gz")) {
    gz_ = gzopen(path.c_str(), "wb6");
    if (!gz_) throw InputError("cannot write " + path + ": " + std::strerror(errno ? errno : ENOMEM));
    return;
  }
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) throw InputError("cannot write " + path + ": " + std::strerror(errno));
}

OutputStream::~OutputStream() {
  try {
    close();
  } catch (...) {  // a destructor never throws; callers that care call close() themselves
  }
}

void OutputStream::write(std::string_view s) {
  for (const char c : s) Put(c);
}

void OutputStream::drain() {
  if (used_ == 0 || !error_.empty()) {
    written_ += used_;
    used_ = 0;
    return;
  }
  if (gz_) {
    const int n = gzwrite(static_cast<gzFile>(gz_), buffer_.data(), static_cast<unsigned>(used_));
    if (n <= 0 || static_cast<std::size_t>(n) != used_) {
      int zerr = 0;
      const char* msg = gzerror(static_cast<gzFile>(gz_), &zerr);
      error_ = zerr == Z_ERRNO ? std::strerror(errno) : (msg ? msg : "gzip write failed");
    }
  } else if (std::fwrite(buffer_.data(), 1, used_, file_) != used_) {
    error_ = std::strerror(errno);
  }
  written_ += used_;
  used_ = 0;
}

void OutputStream::fail(const std::string& why) {
  throw Error("writing " + (is_stdout_ ? std::string("stdout") : path_) + " failed: " + why);
}

void OutputStream::Flush() {
  drain();
  if (file_ && error_.empty() && std::fflush(file_) != 0) error_ = std::strerror(errno);
  if (!error_.empty()) fail(error_);
}

void OutputStream::close() {
  if (closed_) return;
  closed_ = true;
  drain();
  if (gz_) {
    const int rc = gzclose(static_cast<gzFile>(gz_));
    gz_ = nullptr;
    if (rc != Z_OK && error_.empty()) error_ = rc == Z_ERRNO ? std::strerror(errno) : "gzip stream did not close";
  } else if (file_) {
    if (std::fflush(file_) != 0 && error_.empty()) error_ = std::strerror(errno);
    if (!is_stdout_ && std::fclose(file_) != 0 && error_.empty()) error_ = std::strerror(errno);
    file_ = nullptr;
  }
  if (!error_.empty()) fail(error_);
}

}  // namespace ts::prof::exporter
