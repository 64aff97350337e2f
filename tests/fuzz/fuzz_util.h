// Shared by the libFuzzer targets (tests/fuzz): the contract every reader of outside
// data keeps — bad input ends in a typed error whose message is one non-empty line — and a scratch
// file per process for the readers that take a path.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace ts::fuzz {

/// Aborts (libFuzzer keeps the input as a crash) unless `message` is one non-empty line.
inline void require_one_line(const char* message) {
  if (!message || !*message || std::strchr(message, '\n')) {
    std::fprintf(stderr, "reader error is not one non-empty line: '%s'\n", message ? message : "(null)");
    std::abort();
  }
}

/// A path under /tmp unique to this process ("/tmp/ts_fuzz_<pid>_<name>").
inline std::string scratch_path(const char* name) {
  return "/tmp/ts_fuzz_" + std::to_string(::getpid()) + "_" + name;
}

/// Writes `size` bytes to `path` (truncating); aborts when the scratch file cannot be written.
inline void write_file(const std::string& path, const std::uint8_t* data, std::size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || (size && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) {
    std::perror(path.c_str());
    std::abort();
  }
}

}  // namespace ts::fuzz
