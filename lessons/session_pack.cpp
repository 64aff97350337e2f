// Compressed lesson sessions (session_pack.h): zstd's streaming API for .zst, base/capped_read.h's capped
// gunzip for .gz.
#include "lessons/session_pack.h"

#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include "base/capped_read.h"
#include "base/errors.h"

namespace ts::lessons {

namespace fs = std::filesystem;

namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

/// Decompresses the .zst `path` (a regular file) into `out`, at most `max_out` bytes; returns "" or
/// why it failed.
std::string unzstd(const std::string& path, std::FILE* out, std::int64_t max_out) {
  (void)regular_file_bytes(path, "session");
  File in(std::fopen(path.c_str(), "rb"));
  if (!in) return "cannot be read";
  std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  std::vector<char> ibuf(ZSTD_DStreamInSize()), obuf(ZSTD_DStreamOutSize());
  std::size_t last = 1;  // 0 once a frame is complete
  bool any = false;
  std::int64_t produced = 0;
  while (const std::size_t n = std::fread(ibuf.data(), 1, ibuf.size(), in.get())) {
    any = true;
    ZSTD_inBuffer ib{ibuf.data(), n, 0};
    while (ib.pos < ib.size) {
      ZSTD_outBuffer ob{obuf.data(), obuf.size(), 0};
      last = ZSTD_decompressStream(ctx.get(), &ob, &ib);
      if (ZSTD_isError(last)) return std::string("damaged zstd stream (") + ZSTD_getErrorName(last) + ")";
      if ((produced += static_cast<std::int64_t>(ob.pos)) > max_out)
        return "unpacks to more than " + size_text(max_out) + " (the most a packed session may hold)";
      if (std::fwrite(obuf.data(), 1, ob.pos, out) != ob.pos) return "cannot write its copy";
    }
  }
  if (!any) return "empty file, not a zstd stream";
  if (last != 0) return "damaged zstd stream (cut short: the last frame is incomplete)";
  return "";
}

/// Decompresses the .gz `path` (a regular file) into `out`, at most `max_out` bytes (base's
/// CappedInput); returns "" or why it failed.
std::string ungzip(const std::string& path, std::FILE* out, std::int64_t max_out) {
  CappedInput in(path, max_out, "packed session");
  std::vector<char> buf(1 << 16);
  while (const std::size_t n = in.read(buf.data(), buf.size()))
    if (std::fwrite(buf.data(), 1, n, out) != n) return "cannot write its copy";
  if (in.truncated()) return "damaged gzip stream (cut short: unexpected end of file)";
  return "";
}

}  // namespace

void compress_session(const std::string& src, const std::string& dst) {
  std::ifstream in(src, std::ios::binary);
  if (!in) throw InputError("session " + src + ": cannot be read");
  File out(std::fopen(dst.c_str(), "wb"));
  if (!out) throw InputError("session " + dst + ": cannot be written");
  std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)> ctx(ZSTD_createCCtx(), ZSTD_freeCCtx);
  ZSTD_CCtx_setParameter(ctx.get(), ZSTD_c_compressionLevel, kSessionZstdLevel);
  ZSTD_CCtx_setParameter(ctx.get(), ZSTD_c_checksumFlag, 1);  // a damaged copy is told apart from a good one
  std::vector<char> ibuf(ZSTD_CStreamInSize()), obuf(ZSTD_CStreamOutSize());
  bool ok = true, done = false;
  while (ok && !done) {
    in.read(ibuf.data(), static_cast<std::streamsize>(ibuf.size()));
    const auto n = static_cast<std::size_t>(in.gcount());
    const bool last = !in;
    ZSTD_inBuffer ib{ibuf.data(), n, 0};
    for (bool flushed = false; ok && !flushed;) {
      ZSTD_outBuffer ob{obuf.data(), obuf.size(), 0};
      const std::size_t left = ZSTD_compressStream2(ctx.get(), &ob, &ib, last ? ZSTD_e_end : ZSTD_e_continue);
      ok = !ZSTD_isError(left) && std::fwrite(obuf.data(), 1, ob.pos, out.get()) == ob.pos;
      flushed = last ? left == 0 : ib.pos == ib.size;
    }
    done = last;
  }
  ok = std::fclose(out.release()) == 0 && ok;
  if (!ok) throw InputError("session " + dst + ": writing failed");
}

namespace {
std::atomic<long long> g_copies{0};
thread_local long long t_copies = 0;
}  // namespace

long long PlainSession::copies_made() { return g_copies.load(); }
long long PlainSession::copies_made_here() { return t_copies; }

PlainSession::PlainSession(const std::string& path) : path_(path), original_(path) {
  const bool zst = path.ends_with(".zst"), gz = path.ends_with(".gz");
  if (!zst && !gz) return;
  ++g_copies;
  ++t_copies;
  static std::atomic<int> counter{0};
  const fs::path tmp = fs::temp_directory_path() /
                       ("ts-lesson-" + std::to_string(getpid()) + "-" + std::to_string(counter++) + ".tsession");
  std::FILE* out = std::fopen(tmp.c_str(), "wb");
  if (!out) throw InputError("session " + path + ": cannot write its copy " + tmp.string());
  std::string why;
  try {
    why = zst ? unzstd(path, out, kMaxUnpackedBytes) : ungzip(path, out, kMaxUnpackedBytes);
  } catch (const InputError&) {  // base/capped_read.h's own message names the file
    std::fclose(out);
    fs::remove(tmp);
    throw;
  }
  if (std::fclose(out) != 0 && why.empty()) why = "cannot write its copy " + tmp.string();
  if (!why.empty()) {
    fs::remove(tmp);
    throw InputError("session " + path + ": " + why);
  }
  path_ = tmp.string();
  temporary_ = true;
}

std::string PlainSession::named(std::string message) const {
  if (!temporary_) return message;
  for (auto at = message.find(path_); at != std::string::npos; at = message.find(path_, at + original_.size()))
    message.replace(at, path_.size(), original_);
  return message;
}

PlainSession::~PlainSession() {
  if (!temporary_) return;
  std::error_code ec;
  fs::remove(path_, ec);
}

}  // namespace ts::lessons
