// Reading what a user hands us without letting it take the machine's memory: every reader of a
// user's file (model specs, checkpoints, setups, lessons, lesson recordings, traces, packed
// sessions) goes through here. Only regular files are read (a device such as /dev/zero, a FIFO or a
// folder is refused before a byte is read), a file larger than its reader's limit is refused by its
// size, and gzip is inflated with a cap on the bytes it may produce, so a small file that inflates
// to gigabytes stops at the cap with a message that says so instead of running out of memory or
// reading as "truncated". The limits of each reader are in docs/memory-safety.md. Qt-free.
#pragma once
#include <zlib.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ts {

/// The limits (bytes) of the readers that share them; docs/memory-safety.md has the whole table.
inline constexpr std::int64_t kMaxModelSpecBytes = std::int64_t{4} << 20;     // a model-spec file
inline constexpr std::int64_t kMaxLessonBytes = std::int64_t{4} << 20;        // a lesson file (its models inline)
inline constexpr std::int64_t kMaxManifestBytes = std::int64_t{16} << 20;     // a lesson recording's manifest.json
inline constexpr std::int64_t kMaxCheckpointBytes = std::int64_t{8} << 30;    // a checkpoint (read whole)
inline constexpr std::int64_t kMaxTraceTextBytes = std::int64_t{2} << 30;     // a trace's JSON text, decompressed
inline constexpr std::int64_t kMaxTraceStringBytes = std::int64_t{16} << 20;  // one JSON string of a trace
inline constexpr std::int64_t kMaxUnpackedBytes = std::int64_t{8} << 30;      // a packed session, unpacked

/// "1.5 GiB", "16 MiB", "812 bytes": a limit or a size in a message.
std::string size_text(std::int64_t bytes);

/// The size in bytes of `path` when it is a regular file (symbolic links followed). Throws
/// ts::InputError "WHAT PATH: not a regular file (a device, a pipe or a folder)", "WHAT PATH: does
/// not exist" or "WHAT PATH: cannot be read (strerror)". `what` names the reader ("model spec").
std::int64_t regular_file_bytes(const std::string& path, std::string_view what);

/// The whole of `path`, a regular file of at most `max_bytes` bytes. Throws ts::InputError as
/// regular_file_bytes, or "WHAT PATH: N bytes, more than the M a WHAT may hold" for a larger file
/// (nothing is read then), or "cannot be read" when reading fails part way.
std::string read_file_capped(const std::string& path, std::int64_t max_bytes, std::string_view what);

/// A stream of the bytes of a regular file or of memory, gunzipped when it starts with the gzip
/// magic (1f 8b; any number of gzip members, as gzip writes them) and passed through otherwise.
/// read() never produces more than `max_out` bytes in all: the byte after that throws
/// ts::InputError "WHAT NAME: inflates to more than M (the most a WHAT may hold; a gzip bomb?)".
/// Not copyable; one thread.
class CappedInput {
 public:
  /// `path` must be a regular file of at most `max_out` bytes (regular_file_bytes' errors).
  CappedInput(const std::string& path, std::int64_t max_out, std::string_view what);
  /// `data` is not copied and must outlive the stream; `name` is what messages call it.
  CappedInput(const void* data, std::size_t size, std::string name, std::int64_t max_out, std::string_view what);
  ~CappedInput();
  CappedInput(const CappedInput&) = delete;
  CappedInput& operator=(const CappedInput&) = delete;

  /// Up to `n` decompressed bytes into `buf`; 0 at the end. Throws ts::InputError on a read error,
  /// damaged gzip data (naming the compressed byte) or the cap.
  std::size_t read(char* buf, std::size_t n);
  /// Compressed (file or memory) bytes consumed so far, and their total (bytes).
  std::int64_t position() const { return in_pos_; }
  std::int64_t total() const { return in_total_; }
  /// Decompressed bytes produced so far.
  std::int64_t produced() const { return out_; }
  /// At the end: the gzip data stopped before its trailer (the file was cut short).
  bool truncated() const { return truncated_; }
  bool gzip() const { return gzip_; }

 private:
  bool fill();  // more input into the z_stream (false at the end of the input)
  void start(const unsigned char* head, std::size_t n);
  std::string name_, what_;
  std::int64_t max_out_ = 0, out_ = 0, in_pos_ = 0, in_total_ = 0;
  int fd_ = -1;
  const unsigned char* mem_ = nullptr;
  std::vector<unsigned char> in_buf_;
  z_stream z_{};
  bool gzip_ = false, z_live_ = false, ended_ = false, truncated_ = false, member_done_ = false;
};

/// All of a CappedInput's bytes as one string (a setup, a lesson or a spec that may be gzipped).
std::string read_all(CappedInput& in);

}  // namespace ts
