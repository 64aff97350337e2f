// Regular files only, sizes checked before reading, gzip inflated under a cap (see capped_read.h).
#include "base/capped_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "base/errors.h"
#include "base/printable.h"

namespace ts {
namespace {

constexpr std::size_t kInBlock = 256 * 1024;
constexpr std::int64_t kMiB = std::int64_t{1} << 20, kGiB = std::int64_t{1} << 30;

std::string prefix(std::string_view what, const std::string& name) {
  return std::string(what) + " " + printable(name, 256);
}

[[noreturn]] void too_large(std::string_view what, const std::string& name, std::int64_t bytes, std::int64_t cap) {
  throw InputError(prefix(what, name) + ": " + size_text(bytes) + ", more than the " + size_text(cap) + " a " +
                   std::string(what) + " may hold");
}

}  // namespace

std::string size_text(std::int64_t bytes) {
  char buf[48];
  if (bytes >= kGiB && bytes % kGiB == 0) std::snprintf(buf, sizeof buf, "%lld GiB", static_cast<long long>(bytes / kGiB));
  else if (bytes >= kGiB) std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(bytes) / kGiB);
  else if (bytes >= kMiB && bytes % kMiB == 0) std::snprintf(buf, sizeof buf, "%lld MiB", static_cast<long long>(bytes / kMiB));
  else if (bytes >= kMiB) std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / kMiB);
  else std::snprintf(buf, sizeof buf, "%lld bytes", static_cast<long long>(bytes));
  return buf;
}

std::int64_t regular_file_bytes(const std::string& path, std::string_view what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) throw InputError(prefix(what, path) + ": does not exist");
    throw InputError(prefix(what, path) + ": cannot be read (" + std::strerror(errno) + ")");
  }
  if (!S_ISREG(st.st_mode)) throw InputError(prefix(what, path) + ": not a regular file (a device, a pipe or a folder)");
  return static_cast<std::int64_t>(st.st_size);
}

std::string read_file_capped(const std::string& path, std::int64_t max_bytes, std::string_view what) {
  const std::int64_t size = regular_file_bytes(path, what);
  if (size > max_bytes) too_large(what, path, size, max_bytes);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(prefix(what, path) + ": cannot be read (" + std::strerror(errno) + ")");
  std::string out(static_cast<std::size_t>(size), '\0');
  std::size_t got = 0;
  // A file that grows while it is read is read up to the cap, no further.
  while (true) {
    if (got == out.size()) {
      if (static_cast<std::int64_t>(got) >= max_bytes + 1) break;
      out.resize(std::min<std::size_t>(got + 64 * 1024, static_cast<std::size_t>(max_bytes) + 1));
    }
    const ssize_t r = ::read(fd, out.data() + got, out.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      const int e = errno;
      ::close(fd);
      throw InputError(prefix(what, path) + ": cannot be read (" + std::strerror(e) + ")");
    }
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  ::close(fd);
  if (static_cast<std::int64_t>(got) > max_bytes) too_large(what, path, static_cast<std::int64_t>(got), max_bytes);
  out.resize(got);
  return out;
}

CappedInput::CappedInput(const std::string& path, std::int64_t max_out, std::string_view what)
    : name_(path), what_(what), max_out_(max_out) {
  in_total_ = regular_file_bytes(path, what);
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw InputError(prefix(what, path) + ": cannot be read (" + std::strerror(errno) + ")");
  in_buf_.resize(kInBlock);
  ssize_t r = 0;
  do r = ::read(fd_, in_buf_.data(), in_buf_.size());
  while (r < 0 && errno == EINTR);
  if (r < 0) {
    const int e = errno;
    ::close(fd_);
    throw InputError(prefix(what, path) + ": cannot be read (" + std::strerror(e) + ")");
  }
  in_pos_ = r;
  try {
    start(in_buf_.data(), static_cast<std::size_t>(r));
  } catch (...) {
    ::close(fd_);
    throw;
  }
  // A plain file is capped by its size; a gzip file by what it inflates to (its own size can be small).
  if (!gzip_ && in_total_ > max_out) {
    ::close(fd_);
    too_large(what, path, in_total_, max_out);
  }
}

CappedInput::CappedInput(const void* data, std::size_t size, std::string name, std::int64_t max_out,
                         std::string_view what)
    : name_(std::move(name)), what_(what), max_out_(max_out), in_total_(static_cast<std::int64_t>(size)),
      mem_(static_cast<const unsigned char*>(data)) {
  in_pos_ = in_total_;
  start(mem_, size);
  if (!gzip_ && in_total_ > max_out) too_large(what, name_, in_total_, max_out);
}

void CappedInput::start(const unsigned char* head, std::size_t n) {
  gzip_ = n >= 2 && head[0] == 0x1f && head[1] == 0x8b;
  z_.next_in = const_cast<unsigned char*>(head);
  z_.avail_in = static_cast<uInt>(n);
  if (!gzip_) return;
  if (inflateInit2(&z_, 15 + 16) != Z_OK) throw InputError(prefix(what_, name_) + ": zlib could not start");
  z_live_ = true;
}

CappedInput::~CappedInput() {
  if (z_live_) inflateEnd(&z_);
  if (fd_ >= 0) ::close(fd_);
}

bool CappedInput::fill() {
  if (fd_ < 0) return false;  // memory: all of it was given at the start
  ssize_t r = 0;
  do r = ::read(fd_, in_buf_.data(), in_buf_.size());
  while (r < 0 && errno == EINTR);
  if (r < 0) throw InputError(prefix(what_, name_) + ": cannot be read (" + std::strerror(errno) + ")");
  in_pos_ += r;
  z_.next_in = in_buf_.data();
  z_.avail_in = static_cast<uInt>(r);
  return r > 0;
}

std::size_t CappedInput::read(char* buf, std::size_t n) {
  if (ended_ || n == 0) return 0;
  // One byte past the cap is asked for, so that reaching the cap exactly is not an error.
  const auto room = static_cast<std::size_t>(std::max<std::int64_t>(0, max_out_ + 1 - out_));
  n = std::min(n, room);
  std::size_t got = 0;
  if (!gzip_) {
    while (got == 0) {
      if (z_.avail_in == 0 && !fill()) {
        ended_ = true;
        break;
      }
      got = std::min<std::size_t>(n, z_.avail_in);
      std::memcpy(buf, z_.next_in, got);
      z_.next_in += got;
      z_.avail_in -= static_cast<uInt>(got);
    }
  } else {
    z_.next_out = reinterpret_cast<unsigned char*>(buf);
    z_.avail_out = static_cast<uInt>(std::min<std::size_t>(n, 1u << 30));
    while (z_.avail_out > 0) {
      if (z_.avail_in == 0 && !fill()) {
        truncated_ = !member_done_;  // the input ends before the gzip trailer
        ended_ = true;
        break;
      }
      if (member_done_) {  // a further gzip member, or trailing bytes that gzip itself ignores
        if (z_.avail_in >= 2 && (z_.next_in[0] != 0x1f || z_.next_in[1] != 0x8b)) {
          ended_ = true;
          break;
        }
        inflateReset(&z_);
        member_done_ = false;
      }
      const int rc = inflate(&z_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        member_done_ = true;
        continue;
      }
      if (rc == Z_BUF_ERROR && z_.avail_in == 0) continue;
      if (rc != Z_OK)
        throw InputError(prefix(what_, name_) + ": gzip data error (" + (z_.msg ? z_.msg : "inflate failed") +
                         ") near compressed byte " + std::to_string(in_pos_ - z_.avail_in));
    }
    got = static_cast<std::size_t>(reinterpret_cast<char*>(z_.next_out) - buf);
  }
  out_ += static_cast<std::int64_t>(got);
  if (out_ > max_out_)
    throw InputError(prefix(what_, name_) + ": inflates to more than " + size_text(max_out_) + " (the most a " + what_ +
                     " may hold; a gzip bomb?)");
  return got;
}

std::string read_all(CappedInput& in) {
  std::string out;
  char buf[64 * 1024];
  while (const std::size_t n = in.read(buf, sizeof buf)) out.append(buf, n);
  return out;
}

}  // namespace ts
