// Checkpoint serialisation (see checkpoint.h). Payload order: run_config_json, model_spec_json,
// epochs_done, global_step, optimizer_step, seed, loss_scale, scaler_growth_tracker,
// scaler_skipped_steps, then three tensor lists (parameters, buffers, optimizer_state), each as
// uint32 count and per tensor: string name, uint32 ndim, int64 dims[ndim], float32 data.
// Strings are uint32 length + bytes.
#include "engine/checkpoint.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include "base/capped_read.h"
#include "base/errors.h"
#include "base/printable.h"

namespace ts {
namespace {

constexpr char kMagic[8] = {'T', 'S', 'C', 'K', 'P', 'T', 0, 0};
constexpr std::size_t kHeaderBytes = 8 + 4 + 8 + 4;

struct Writer {
  std::vector<char> buf;
  void raw(const void* p, std::size_t n) { buf.insert(buf.end(), static_cast<const char*>(p), static_cast<const char*>(p) + n); }
  template <class T> void put(T v) { raw(&v, sizeof v); }
  void str(const std::string& s) { put<std::uint32_t>(static_cast<std::uint32_t>(s.size())); raw(s.data(), s.size()); }
  void tensors(const std::vector<NamedTensor>& ts) {
    put<std::uint32_t>(static_cast<std::uint32_t>(ts.size()));
    for (const auto& t : ts) {
      str(t.name);
      put<std::uint32_t>(static_cast<std::uint32_t>(t.tensor.shape.size()));
      for (auto d : t.tensor.shape) put<std::int64_t>(d);
      raw(t.tensor.data.data(), t.tensor.data.size() * sizeof(float));
    }
  }
};

struct Reader {
  const std::string& buf;
  std::size_t pos;
  const std::string& path;
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(path + ": " + what + " at byte " + std::to_string(pos));
  }
  void raw(void* p, std::size_t n) {
    if (n > buf.size() - pos) fail("checkpoint truncated (needs " + std::to_string(n) + " more bytes)");
    std::memcpy(p, buf.data() + pos, n);
    pos += n;
  }
  template <class T> T get() { T v; raw(&v, sizeof v); return v; }
  std::string str() {
    const auto n = get<std::uint32_t>();
    if (n > buf.size() - pos) fail("string of " + std::to_string(n) + " bytes runs past the end");
    std::string s(buf.data() + pos, n);
    pos += n;
    return s;
  }
  std::vector<NamedTensor> tensors() {
    const auto count = get<std::uint32_t>();
    std::vector<NamedTensor> out;
    for (std::uint32_t i = 0; i < count; ++i) {
      NamedTensor t;
      t.name = str();
      const auto ndim = get<std::uint32_t>();
      if (ndim > 8) fail("tensor '" + printable(t.name) + "' has " + std::to_string(ndim) + " dimensions");
      // The element count is checked against the bytes left after every dimension, so that the
      // product can neither overflow (8 dims of 2^34 did, and wrapped to a count that passed the
      // check: a 2^61-element resize; found by ts_checkpoint_fuzzer) nor ask for more than the file holds.
      std::uint64_t n = 1;
      bool too_big = false;
      for (std::uint32_t d = 0; d < ndim; ++d) {
        const auto dim = get<std::int64_t>();
        if (dim < 0 || dim > (std::int64_t{1} << 34)) fail("tensor '" + printable(t.name) + "' has a bad size " + std::to_string(dim));
        t.tensor.shape.push_back(dim);
        const std::uint64_t limit = (buf.size() - pos) / sizeof(float);
        if (dim != 0 && n > limit / static_cast<std::uint64_t>(dim)) too_big = true;
        n = too_big ? 0 : n * static_cast<std::uint64_t>(dim);
      }
      if (too_big || n * sizeof(float) > buf.size() - pos) fail("tensor '" + printable(t.name) + "' runs past the end");
      t.tensor.data.resize(static_cast<std::size_t>(n));
      raw(t.tensor.data.data(), t.tensor.data.size() * sizeof(float));
      out.push_back(std::move(t));
    }
    return out;
  }
};

void write_all(int fd, const char* p, std::size_t n, const std::string& tmp) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw InputError(tmp + ": cannot write checkpoint: " + std::strerror(err));
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

}  // namespace

void save_checkpoint(const std::string& path, const TrainingState& s) {
  Writer p;
  p.str(s.run_config_json);
  p.str(s.model_spec_json);
  p.put(s.epochs_done); p.put(s.global_step); p.put(s.optimizer_step); p.put(s.seed);
  p.put(s.loss_scale); p.put(s.scaler_growth_tracker); p.put(s.scaler_skipped_steps);
  p.tensors(s.parameters);
  p.tensors(s.buffers);
  p.tensors(s.optimizer_state);
  Writer h;
  h.raw(kMagic, 8);
  h.put<std::uint32_t>(kCheckpointVersion);
  h.put<std::uint64_t>(p.buf.size());
  h.put<std::uint32_t>(static_cast<std::uint32_t>(
      crc32_z(0L, reinterpret_cast<const Bytef*>(p.buf.data()), p.buf.size())));
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw InputError(tmp + ": cannot create checkpoint: " + std::strerror(errno));
  write_all(fd, h.buf.data(), h.buf.size(), tmp);
  write_all(fd, p.buf.data(), p.buf.size(), tmp);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(tmp.c_str());
    throw InputError(tmp + ": cannot flush checkpoint: " + std::strerror(errno));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    throw InputError(path + ": cannot rename checkpoint into place: " + std::strerror(errno));
  }
}

TrainingState load_checkpoint(const std::string& path) {
  const std::string buf = read_file_capped(path, kMaxCheckpointBytes, "checkpoint");
  Reader r{buf, 0, path};
  if (buf.size() < kHeaderBytes || std::memcmp(buf.data(), kMagic, 8) != 0)
    throw InputError(path + ": not a TrainScope checkpoint (bad magic at byte 0)");
  r.pos = 8;
  const auto version = r.get<std::uint32_t>();
  if (version > kCheckpointVersion)
    throw InputError(path + ": checkpoint version " + std::to_string(version) + " is newer than this TrainScope (" +
                     std::to_string(kCheckpointVersion) + ")");
  const auto payload = r.get<std::uint64_t>();
  const auto crc = r.get<std::uint32_t>();
  if (payload != buf.size() - kHeaderBytes)
    throw InputError(path + ": checkpoint truncated or padded: header says " + std::to_string(payload) +
                     " payload bytes, file has " + std::to_string(buf.size() - kHeaderBytes) + " after byte " +
                     std::to_string(kHeaderBytes));
  const auto actual = static_cast<std::uint32_t>(
      crc32_z(0L, reinterpret_cast<const Bytef*>(buf.data() + kHeaderBytes), static_cast<std::size_t>(payload)));
  if (actual != crc) throw InputError(path + ": checkpoint corrupted (CRC-32 mismatch over bytes " +
                                      std::to_string(kHeaderBytes) + ".." + std::to_string(buf.size()) + ")");
  TrainingState s;
  s.run_config_json = r.str();
  s.model_spec_json = r.str();
  s.epochs_done = r.get<std::int64_t>();
  s.global_step = r.get<std::int64_t>();
  s.optimizer_step = r.get<std::int64_t>();
  s.seed = r.get<std::uint64_t>();
  s.loss_scale = r.get<float>();
  s.scaler_growth_tracker = r.get<std::int64_t>();
  s.scaler_skipped_steps = r.get<std::int64_t>();
  s.parameters = r.tensors();
  s.buffers = r.tensors();
  s.optimizer_state = r.tensors();
  if (r.pos != buf.size()) r.fail("unexpected data after the last tensor");
  return s;
}

}  // namespace ts
