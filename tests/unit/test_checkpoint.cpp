// Checkpoint files: round trip, atomic replacement, and corrupted/truncated/foreign files refused
// with a message naming the file and the byte offset.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <cstring>
#include <vector>

#include <zlib.h>

#include "base/errors.h"
#include "engine/checkpoint.h"

namespace fs = std::filesystem;

namespace ts {
namespace {

TrainingState sample_state() {
  TrainingState s;
  s.run_config_json = R"({"batch_size":128,"amp":"fp16"})";
  s.model_spec_json = R"({"name":"SimpleCNN"})";
  s.epochs_done = 2;
  s.global_step = 782;
  s.optimizer_step = 780;
  s.seed = 42;
  s.loss_scale = 32768.0f;
  s.scaler_growth_tracker = 17;
  s.scaler_skipped_steps = 2;
  s.parameters = {{"conv1.weight", HostTensor({2, 1, 3, 3}, std::vector<float>(18, 0.5f))}, {"conv1.bias", HostTensor({2}, {1.f, -2.f})}};
  s.buffers = {{"bn.running_var", HostTensor({2}, {0.9f, 1.1f})}};
  s.optimizer_state = {{"conv1.bias.exp_avg", HostTensor({2}, {1e-3f, 2e-3f})}, {"conv1.bias.exp_avg_sq", HostTensor({2}, {1e-6f, 4e-6f})}};
  return s;
}

std::string tmp(const char* name) { return (fs::temp_directory_path() / name).string(); }

std::string error_of(const std::string& path) {
  try {
    load_checkpoint(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Checkpoint, RoundTripKeepsEverything) {
  const auto path = tmp("ts_ckpt_roundtrip.ckpt");
  const auto s = sample_state();
  save_checkpoint(path, s);
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  const auto r = load_checkpoint(path);
  EXPECT_EQ(r.run_config_json, s.run_config_json);
  EXPECT_EQ(r.model_spec_json, s.model_spec_json);
  EXPECT_EQ(r.epochs_done, 2);
  EXPECT_EQ(r.global_step, 782);
  EXPECT_EQ(r.optimizer_step, 780);
  EXPECT_EQ(r.seed, 42u);
  EXPECT_EQ(r.loss_scale, 32768.0f);
  EXPECT_EQ(r.scaler_growth_tracker, 17);
  EXPECT_EQ(r.scaler_skipped_steps, 2);
  ASSERT_EQ(r.parameters.size(), 2u);
  EXPECT_EQ(r.parameters[0].name, "conv1.weight");
  EXPECT_EQ(r.parameters[0].tensor.shape, (Shape{2, 1, 3, 3}));
  EXPECT_EQ(r.parameters[1].tensor.data, (std::vector<float>{1.f, -2.f}));
  EXPECT_EQ(r.buffers[0].tensor.data, s.buffers[0].tensor.data);
  EXPECT_EQ(r.optimizer_state[1].name, "conv1.bias.exp_avg_sq");
  EXPECT_EQ(r.optimizer_state[1].tensor.data, s.optimizer_state[1].tensor.data);
}

TEST(Checkpoint, SaveReplacesAtomically) {
  const auto path = tmp("ts_ckpt_replace.ckpt");
  auto s = sample_state();
  save_checkpoint(path, s);
  s.global_step = 999;
  save_checkpoint(path, s);
  EXPECT_EQ(load_checkpoint(path).global_step, 999);
}

TEST(Checkpoint, UnwritableFolderIsAnInputError) {
  EXPECT_THROW(save_checkpoint("/nonexistent-dir/x.ckpt", sample_state()), InputError);
}

TEST(Checkpoint, TruncatedFileNamesSizes) {
  const auto path = tmp("ts_ckpt_trunc.ckpt");
  save_checkpoint(path, sample_state());
  fs::resize_file(path, fs::file_size(path) - 10);
  const auto m = error_of(path);
  EXPECT_NE(m.find(path), std::string::npos) << m;
  EXPECT_NE(m.find("truncated"), std::string::npos) << m;
}

TEST(Checkpoint, FlippedByteIsCorruption) {
  const auto path = tmp("ts_ckpt_flip.ckpt");
  save_checkpoint(path, sample_state());
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(60);
    f.put('\x7f');
  }
  const auto m = error_of(path);
  EXPECT_NE(m.find("corrupted (CRC-32 mismatch"), std::string::npos) << m;
}

TEST(Checkpoint, ForeignAndNewerFilesRefused) {
  const auto foreign = tmp("ts_ckpt_foreign.ckpt");
  std::ofstream(foreign) << "PK\x03\x04 not a checkpoint at all";
  EXPECT_NE(error_of(foreign).find("not a TrainScope checkpoint (bad magic at byte 0)"), std::string::npos);
  const auto newer = tmp("ts_ckpt_newer.ckpt");
  save_checkpoint(newer, sample_state());
  {
    std::fstream f(newer, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(8);
    const std::uint32_t v = 99;
    f.write(reinterpret_cast<const char*>(&v), 4);
  }
  EXPECT_NE(error_of(newer).find("version 99 is newer"), std::string::npos) << error_of(newer);
  EXPECT_NE(error_of(tmp("ts_ckpt_missing.ckpt")).find("does not exist"), std::string::npos);
}

TEST(Checkpoint, EmptyFileRefused) {
  const auto path = tmp("ts_ckpt_empty.ckpt");
  std::ofstream(path).close();
  EXPECT_NE(error_of(path).find("bad magic"), std::string::npos);
}

/// A well-formed checkpoint (valid header and CRC) whose one parameter is `name` with `ndim`
/// dimensions of `dim` and no data.
std::string write_shape_only(const char* file, const std::string& name, std::uint32_t ndim, std::int64_t dim) {
  std::vector<char> p;
  auto put = [&](const void* v, std::size_t n) { p.insert(p.end(), static_cast<const char*>(v), static_cast<const char*>(v) + n); };
  auto put32 = [&](std::uint32_t v) { put(&v, 4); };
  auto put64 = [&](std::int64_t v) { put(&v, 8); };
  put32(0), put32(0);                                    // run config, model spec: empty strings
  for (int i = 0; i < 4; ++i) put64(0);                  // epochs, global step, optimizer step, seed
  const float scale = 1.0f;
  put(&scale, 4), put64(0), put64(0);                    // loss scale, growth tracker, skipped steps
  put32(1), put32(static_cast<std::uint32_t>(name.size())), put(name.data(), name.size()), put32(ndim);
  for (std::uint32_t d = 0; d < ndim; ++d) put64(dim);
  std::vector<char> out(24);
  std::memcpy(out.data(), "TSCKPT\0\0", 8);
  const std::uint32_t version = kCheckpointVersion;
  const std::uint64_t bytes = p.size();
  const auto crc = static_cast<std::uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(p.data()), static_cast<uInt>(p.size())));
  std::memcpy(out.data() + 8, &version, 4), std::memcpy(out.data() + 12, &bytes, 8), std::memcpy(out.data() + 20, &crc, 4);
  out.insert(out.end(), p.begin(), p.end());
  const auto path = tmp(file);
  std::ofstream(path, std::ios::binary).write(out.data(), static_cast<std::streamsize>(out.size()));
  return path;
}

// Found by ts_checkpoint_fuzzer: 8 dimensions of 2^34 overflowed the element count, which wrapped to
// a size that passed the bounds check; the resize then threw std::length_error past every handler
// (std::terminate). And a tensor name holding a newline split the error. Both are one-line InputErrors.
TEST(Checkpoint, HugeShapesAndOddNamesAreOneLineInputErrors) {
  const std::string e = error_of(write_shape_only("ts_ckpt_huge_shape.ckpt", "w", 8, std::int64_t{1} << 34));
  EXPECT_NE(e.find("tensor 'w' runs past the end"), std::string::npos) << e;
  const std::string odd = error_of(write_shape_only("ts_ckpt_odd_name.ckpt", "fc\n.weight", 9, 1));
  EXPECT_NE(odd.find("tensor 'fc\\n.weight' has 9 dimensions"), std::string::npos) << odd;
  EXPECT_EQ(odd.find('\n'), std::string::npos) << odd;
}

}  // namespace
}  // namespace ts
