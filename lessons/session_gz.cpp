// Gzipped lesson sessions (session_gz.h), with zlib's gz* file functions.
#include "lessons/session_gz.h"

#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <vector>

#include "engine/errors.h"

namespace ts::lessons {

namespace fs = std::filesystem;

void gzip_file(const std::string& src, const std::string& dst) {
  std::ifstream in(src, std::ios::binary);
  if (!in) throw InputError("session " + src + ": cannot be read");
  gzFile out = gzopen(dst.c_str(), "wb9");
  if (!out) throw InputError("session " + dst + ": cannot be written");
  std::vector<char> buf(1 << 16);
  bool ok = true;
  while (in && ok) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const auto n = static_cast<unsigned>(in.gcount());
    if (n > 0) ok = gzwrite(out, buf.data(), n) == static_cast<int>(n);
  }
  if (gzclose(out) != Z_OK || !ok) throw InputError("session " + dst + ": writing failed");
}

PlainSession::PlainSession(const std::string& path) : path_(path) {
  if (path.size() < 3 || path.compare(path.size() - 3, 3, ".gz") != 0) return;
  static std::atomic<int> counter{0};
  const fs::path tmp = fs::temp_directory_path() /
                       ("ts-lesson-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + ".tsession");
  gzFile in = gzopen(path.c_str(), "rb");
  if (!in) throw InputError("session " + path + ": cannot be read");
  std::FILE* out = std::fopen(tmp.c_str(), "wb");
  if (!out) {
    gzclose(in);
    throw InputError("session " + path + ": cannot write its copy " + tmp.string());
  }
  std::vector<char> buf(1 << 16);
  int n = 0;
  bool ok = true;
  while ((n = gzread(in, buf.data(), static_cast<unsigned>(buf.size()))) > 0)
    ok = ok && std::fwrite(buf.data(), 1, static_cast<std::size_t>(n), out) == static_cast<std::size_t>(n);
  int err = Z_OK;
  const char* msg = gzerror(in, &err);  // a cut stream: gzread returns 0, gzerror "unexpected end of file"
  const std::string why = err != Z_OK && msg ? msg : "";
  gzclose(in);
  ok = std::fclose(out) == 0 && ok;
  if (n < 0 || err != Z_OK || !ok) {
    fs::remove(tmp);
    throw InputError("session " + path + ": damaged gzip stream" + (why.empty() ? "" : " (" + why + ")"));
  }
  path_ = tmp.string();
  temporary_ = true;
}

PlainSession::~PlainSession() {
  if (!temporary_) return;
  std::error_code ec;
  fs::remove(path_, ec);
}

}  // namespace ts::lessons
