// Gzipped session files of recorded lessons (ID.tsession.gz): written by `trainscope-run --lesson
// ... --lesson-gzip`, read through a temporary copy (SQLite opens plain files only). Sessions shrink
// to ~45 % (resources/lessons/recorded must stay under 4 MB in all: every file of the checkout
// travels with each GPU-machine call).
#pragma once
#include <string>

namespace ts::lessons {

/// Writes `src` gzip-compressed (level 9) to `dst`. Throws InputError naming the file on failure.
void gzip_file(const std::string& src, const std::string& dst);

/// A plain session file to open for `path`: `path` itself, or for a *.gz file a decompressed copy in
/// the temporary folder that the returned object deletes when it goes. Throws InputError naming the
/// file for a damaged or unreadable .gz.
class PlainSession {
 public:
  explicit PlainSession(const std::string& path);
  ~PlainSession();
  PlainSession(const PlainSession&) = delete;
  PlainSession& operator=(const PlainSession&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool temporary_ = false;
};

}  // namespace ts::lessons
