// extract_cifar_archive: libarchive reader, safe member selection, plain file writes.
#include "widgets/data/archive_extract.h"

#include <archive.h>
#include <archive_entry.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

namespace ts::gui {
namespace fs = std::filesystem;

bool is_cifar_member(const std::string& n) {
  if (n == "test_batch.bin" || n == "batches.meta.txt" || n == "readme.html") return true;
  return n.size() == 16 && n.rfind("data_batch_", 0) == 0 && n[11] >= '1' && n[11] <= '5' && n.substr(12) == ".bin";
}

std::string extract_cifar_archive(const std::string& archive_path, const std::string& dest_dir) {
  std::unique_ptr<archive, decltype(&archive_read_free)> a(archive_read_new(), &archive_read_free);
  archive_read_support_filter_gzip(a.get());
  archive_read_support_format_tar(a.get());
  if (archive_read_open_filename(a.get(), archive_path.c_str(), 1 << 16) != ARCHIVE_OK)
    return "cannot open " + archive_path + ": " + archive_error_string(a.get());
  const fs::path out_dir = fs::path(dest_dir) / "cifar-10-batches-bin";
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) return "cannot create " + out_dir.string() + ": " + ec.message();
  int written = 0;
  std::vector<char> buf(1 << 16);
  archive_entry* entry = nullptr;
  for (;;) {
    const int r = archive_read_next_header(a.get(), &entry);
    if (r == ARCHIVE_EOF) break;
    if (r != ARCHIVE_OK && r != ARCHIVE_WARN)
      return "the archive is damaged: " + std::string(archive_error_string(a.get()));
    const std::string base = fs::path(archive_entry_pathname(entry)).filename().string();
    if (archive_entry_filetype(entry) != AE_IFREG || !is_cifar_member(base)) continue;  // skipped
    const fs::path out = out_dir / base;
    std::ofstream f(out, std::ios::binary | std::ios::trunc);
    if (!f) return "cannot write " + out.string();
    for (;;) {
      const la_ssize_t n = archive_read_data(a.get(), buf.data(), buf.size());
      if (n < 0) return "the archive is damaged in " + base + ": " + archive_error_string(a.get());
      if (n == 0) break;
      f.write(buf.data(), n);
    }
    if (!f.flush()) return "cannot write " + out.string() + " (disk full?)";
    ++written;
  }
  if (written == 0) return "the archive holds no CIFAR-10 binary file (data_batch_N.bin, test_batch.bin)";
  return {};
}

}  // namespace ts::gui
