// Unpacking of the CIFAR-10 binary archive (cifar-10-binary.tar.gz) with libarchive. Qt-free.
// Only the known regular files of the binary version are written, by base name, into
// <dest>/cifar-10-batches-bin; links, folders and any other member are skipped, so a crafted
// archive cannot write outside the folder.
#pragma once
#include <string>

namespace ts::gui {

/// Extracts `archive` (gzip-compressed tar) into `dest_dir`/cifar-10-batches-bin. Returns "" on
/// success, else a one-line reason (unreadable archive, no CIFAR-10 member, write failure).
std::string extract_cifar_archive(const std::string& archive, const std::string& dest_dir);

/// True for the member base names of the binary version (data_batch_1..5.bin, test_batch.bin,
/// batches.meta.txt, readme.html).
bool is_cifar_member(const std::string& base_name);

}  // namespace ts::gui
