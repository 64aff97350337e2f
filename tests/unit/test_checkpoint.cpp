// Checkpoint files: round trip, atomic replacement, and corrupted/truncated/foreign files refused
// with a message naming the file and the byte offset.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "engine/checkpoint.h"
#include "engine/errors.h"

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
  EXPECT_NE(error_of(tmp("ts_ckpt_missing.ckpt")).find("cannot open checkpoint"), std::string::npos);
}

TEST(Checkpoint, EmptyFileRefused) {
  const auto path = tmp("ts_ckpt_empty.ckpt");
  std::ofstream(path).close();
  EXPECT_NE(error_of(path).find("bad magic"), std::string::npos);
}

}  // namespace
}  // namespace ts
