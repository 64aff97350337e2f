// Reading a user's file under a cap (base/capped_read.h) and every reader that goes through it: a
// device (/dev/zero), a pipe or a folder is refused before a byte is read, a file past its reader's
// limit is refused by its size, and gzip that inflates past the cap stops there with a message that
// says so (not "truncated"). Caps are made small here: no test allocates more than a few MiB, and
// each /dev/zero case ends in well under 2 s.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "base/capped_read.h"
#include "base/errors.h"
#include "engine/checkpoint.h"
#include "engine/model_spec.h"
#include "lessons/lesson.h"
#include "lessons/lesson_eval.h"
#include "lessons/session_pack.h"
#include "profiling/import/trace_import.h"
#include "setups/setup.h"

namespace ts {
namespace {

namespace fs = std::filesystem;
constexpr std::int64_t kMiB = std::int64_t{1} << 20, kGiB = std::int64_t{1} << 30;

std::string temp(const std::string& name) {
  return (fs::temp_directory_path() / ("ts_capped_" + std::to_string(getpid()) + "_" + name)).string();
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

/// `text` as one gzip member (zlib's deflate with the gzip wrapper).
std::string gzip(const std::string& text) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, text.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

/// The message of what `f` throws ("" when it does not throw an ts::Error), and that it took < 2 s.
template <class F>
std::string error_of(F f) {
  const auto t0 = std::chrono::steady_clock::now();
  std::string what;
  try {
    f();
  } catch (const Error& e) {
    what = e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2)) << what;
  return what;
}

TEST(CappedRead, DevicesPipesAndFoldersAreRefusedBeforeAByteIsRead) {
  const std::string fifo = temp("fifo");
  fs::remove(fifo);
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);  // opening it would block forever: it must not be opened
  for (const std::string& p : {std::string("/dev/zero"), fifo, fs::temp_directory_path().string()}) {
    const std::string e = error_of([&] { (void)read_file_capped(p, kMiB, "model spec"); });
    EXPECT_NE(e.find("model spec " + p + ": not a regular file"), std::string::npos) << e;
    EXPECT_NE(error_of([&] { CappedInput in(p, kMiB, "trace"); }).find("not a regular file"), std::string::npos);
  }
  fs::remove(fifo);
  EXPECT_NE(error_of([] { (void)read_file_capped("/no/such/file", kMiB, "lesson"); }).find("does not exist"),
            std::string::npos);
}

TEST(CappedRead, AFileLargerThanItsLimitIsRefusedByItsSize) {
  const std::string p = temp("big.json");
  write_file(p, std::string(3000, ' '));
  EXPECT_EQ(read_file_capped(p, 3000, "setup").size(), 3000u);  // the limit itself is allowed
  const std::string e = error_of([&] { (void)read_file_capped(p, 2048, "setup"); });
  EXPECT_NE(e.find("setup " + p + ": 3000 bytes, more than the 2048 bytes a setup may hold"), std::string::npos) << e;
  fs::remove(p);
  EXPECT_EQ(size_text(4 * kGiB), "4 GiB");
  EXPECT_EQ(size_text(16 * kMiB), "16 MiB");
}

TEST(CappedRead, GunzipStopsAtTheCapAndSaysSo) {
  const std::string bomb = gzip(std::string(4 * kMiB, 'a'));  // ~4 KiB that inflate to 4 MiB
  ASSERT_LT(bomb.size(), 64u * 1024);
  const std::string e = error_of([&] {
    CappedInput in(bomb.data(), bomb.size(), "bomb.json.gz", kMiB, "trace");
    (void)read_all(in);
  });
  EXPECT_NE(e.find("trace bomb.json.gz: inflates to more than 1 MiB"), std::string::npos) << e;
  // Within the cap, two gzip members read as one text, as gzip writes them; a cut one says so.
  const std::string two = gzip("hello ") + gzip("world");
  CappedInput ok(two.data(), two.size(), "two.gz", kMiB, "trace");
  EXPECT_EQ(read_all(ok), "hello world");
  EXPECT_FALSE(ok.truncated());
  const std::string cut = two.substr(0, two.size() - 6);
  CappedInput short_one(cut.data(), cut.size(), "cut.gz", kMiB, "trace");
  (void)read_all(short_one);
  EXPECT_TRUE(short_one.truncated());
  // A file: the same, and a plain file passes through.
  const std::string p = temp("bomb.gz");
  write_file(p, bomb);
  EXPECT_NE(error_of([&] {
              CappedInput in(p, kMiB, "packed session");
              (void)read_all(in);
            }).find("inflates to more than 1 MiB (the most a packed session may hold"),
            std::string::npos);
  write_file(p, "plain text");
  CappedInput plain(p, kMiB, "trace");
  EXPECT_EQ(read_all(plain), "plain text");
  fs::remove(p);
}

TEST(CappedRead, EveryReaderRefusesDevZeroAtOnce) {
  EXPECT_NE(error_of([] { (void)load_model_spec("/dev/zero"); }).find("not a regular file"), std::string::npos);
  EXPECT_NE(error_of([] { (void)load_checkpoint("/dev/zero"); }).find("checkpoint /dev/zero: not a regular file"),
            std::string::npos);
  EXPECT_NE(error_of([] { (void)lessons::load_lesson_file("/dev/zero"); }).find("not a regular file"), std::string::npos);
  EXPECT_NE(error_of([] { (void)setups::read_setup("/dev/zero"); }).find("not a regular file"), std::string::npos);
  EXPECT_NE(error_of([] { (void)prof::import::import_trace("/dev/zero", {}); }).find("trace /dev/zero: not a regular file"),
            std::string::npos);
  const std::string dir = temp("record");
  fs::create_directories(dir);
  for (const char* packed : {"zero.tsession.gz", "zero.tsession.zst"}) {
    const fs::path link = fs::path(dir) / packed;
    fs::create_symlink("/dev/zero", link);
    EXPECT_NE(error_of([&] { lessons::PlainSession s(link.string()); }).find("not a regular file"), std::string::npos);
  }
  fs::create_symlink("/dev/zero", fs::path(dir) / "manifest.json");
  EXPECT_NE(error_of([&] { (void)lessons::read_record(dir); }).find("not a regular file"), std::string::npos);
  fs::remove_all(dir);
}

// A small .json.gz holding one huge string: refused at the string limit, naming it, not "truncated"
// (the JSON reader would otherwise buffer the whole string).
TEST(CappedRead, ATraceStringPastItsLimitIsNamedNotCalledTruncated) {
  const std::string p = temp("long_string.json.gz");
  write_file(p, gzip(R"({"traceEvents": [{"ph": "X", "name": ")" + std::string(3 * kMiB, 'k') + R"(", "ts": 1, "dur": 2}]})"));
  prof::import::ImportOptions opt;
  opt.max_string_bytes = kMiB;
  const std::string e = error_of([&] { (void)prof::import::import_trace(p, opt); });
  EXPECT_NE(e.find("longer than 1 MiB (the most one string of a trace may hold)"), std::string::npos) << e;
  EXPECT_EQ(e.find("truncated"), std::string::npos) << e;
  EXPECT_NO_THROW((void)prof::import::import_trace(p, {}));  // the default limit (16 MiB) takes it
  // The whole text past its limit: the gzip cap names it.
  opt.max_string_bytes = kMaxTraceStringBytes;
  opt.max_text_bytes = 2 * kMiB;
  const std::string t = error_of([&] { (void)prof::import::import_trace(p, opt); });
  EXPECT_NE(t.find("inflates to more than 2 MiB"), std::string::npos) << t;
  fs::remove(p);
}

}  // namespace
}  // namespace ts
