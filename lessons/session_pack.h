// Compressed session files of recorded lessons (ID.tsession.zst, zstd level 19): written by
// `trainscope-run --lesson ... --lesson-compress`, read through a temporary copy (SQLite opens plain
// files only). A session shrinks to ~35 % (gzip -9: ~46 %); resources/lessons/recorded must stay
// under 4 MiB in all, since every file of the checkout travels with each GPU-machine call (64 MiB).
// Older recordings, ID.tsession.gz, are still read.
#pragma once
#include <string>

namespace ts::lessons {

/// zstd compression level of the recordings: 19, the highest of the normal levels (zstd's manual,
/// "ZSTD_maxCLevel" aside); a 4 MB session takes ~2 s on one core, and decompression stays fast.
inline constexpr int kSessionZstdLevel = 19;

/// Writes `src` zstd-compressed (kSessionZstdLevel) to `dst`. Throws InputError naming the file on failure.
void compress_session(const std::string& src, const std::string& dst);

/// A plain session file to open for `path`: `path` itself, or for a *.zst / *.gz file a decompressed
/// copy in the temporary folder that the returned object deletes when it goes. Throws InputError
/// naming the file for a damaged, cut or unreadable stream.
class PlainSession {
 public:
  explicit PlainSession(const std::string& path);
  ~PlainSession();
  PlainSession(const PlainSession&) = delete;
  PlainSession& operator=(const PlainSession&) = delete;
  const std::string& path() const { return path_; }
  /// `message` (an error about path()) with the temporary copy's name replaced by the file the caller
  /// gave: the user chose that file, the copy is gone by the time they read it.
  std::string named(std::string message) const;
  /// Decompressed copies made so far, in the whole process and by the calling thread: the window's
  /// tests check that a file it opens is decompressed once, and not on the GUI thread.
  static long long copies_made();
  static long long copies_made_here();

 private:
  std::string path_, original_;
  bool temporary_ = false;
};

}  // namespace ts::lessons
