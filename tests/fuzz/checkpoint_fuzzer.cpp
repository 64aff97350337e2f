// libFuzzer target for the checkpoint reader (engine/checkpoint.cpp). Most random bytes fail the
// magic or the CRC-32, so inputs that start with 'P' are taken as a payload and given a valid header
// (magic, version 1, size, CRC) first: the fuzzer then reaches the strings and tensor lists. Any file
// must end in a TrainingState or a one-line InputError naming the file and byte offset; a loaded
// state's tensors must hold as many values as their shapes say.
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "base/errors.h"
#include "engine/checkpoint.h"
#include "fuzz_util.h"

namespace {

std::vector<std::uint8_t> with_header(const std::uint8_t* payload, std::size_t n) {
  std::vector<std::uint8_t> out(24 + n);
  std::memcpy(out.data(), "TSCKPT\0\0", 8);
  const std::uint32_t version = ts::kCheckpointVersion;
  const std::uint64_t bytes = n;
  const auto crc = static_cast<std::uint32_t>(crc32(0L, payload, static_cast<uInt>(n)));
  std::memcpy(out.data() + 8, &version, 4);
  std::memcpy(out.data() + 12, &bytes, 8);
  std::memcpy(out.data() + 20, &crc, 4);
  if (n) std::memcpy(out.data() + 24, payload, n);
  return out;
}

void check(const std::vector<ts::NamedTensor>& list) {
  for (const auto& t : list)
    if (t.tensor.data.size() != static_cast<std::size_t>(ts::numel(t.tensor.shape))) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = ts::fuzz::scratch_path("checkpoint.tsckpt");
  if (size > 0 && data[0] == 'P') {
    const auto file = with_header(data + 1, size - 1);
    ts::fuzz::write_file(path, file.data(), file.size());
  } else {
    ts::fuzz::write_file(path, data, size);
  }
  try {
    const ts::TrainingState s = ts::load_checkpoint(path);
    check(s.parameters);
    check(s.buffers);
    check(s.optimizer_state);
  } catch (const ts::InputError& e) {
    ts::fuzz::require_one_line(e.what());
  }
  return 0;
}
