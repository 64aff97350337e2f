// Checkpoint files: everything needed to resume a run exactly — weights, buffers, optimizer state,
// loss-scaler state, counters, the seed (the loader's shuffle and augmentation and the dropout masks
// are pure functions of seed, epoch and step, so that is the whole RNG state) and the run config.
//
// Layout (little-endian):  magic "TSCKPT\0\0" (8 bytes) | uint32 version (1) | uint64 payload bytes |
// uint32 CRC-32 of the payload (zlib) | payload. Payload: strings and named fp32 tensors, see
// checkpoint.cpp. Written to FILE.tmp, fsync'ed and renamed over FILE, so a crash never leaves a
// half-written checkpoint under the real name.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/tensor.h"

namespace ts {

struct TrainingState {
  std::string run_config_json;     // the front end's knobs, opaque here
  std::string model_spec_json;     // to_json(ModelSpec)
  std::int64_t epochs_done = 0;    // completed epochs
  std::int64_t global_step = 0;    // train steps taken
  std::int64_t optimizer_step = 0; // optimizer updates applied (differs with skipped AMP steps / accumulation)
  std::uint64_t seed = 0;
  float loss_scale = 1.0f;
  std::int64_t scaler_growth_tracker = 0, scaler_skipped_steps = 0;
  std::vector<NamedTensor> parameters;       // PyTorch names
  std::vector<NamedTensor> buffers;          // BatchNorm running statistics
  std::vector<NamedTensor> optimizer_state;  // "<param>.exp_avg", "<param>.exp_avg_sq", "<param>.momentum_buffer"
};

constexpr std::uint32_t kCheckpointVersion = 1;

/// Writes atomically (temporary file + fsync + rename). Throws InputError when the folder cannot
/// be written or the disk is full (the previous checkpoint under `path`, if any, stays intact).
void save_checkpoint(const std::string& path, const TrainingState& state);

/// Reads a checkpoint. Throws InputError (one line, naming the file and the byte offset) when it is
/// not a checkpoint, of a newer version, truncated, or its checksum does not match.
TrainingState load_checkpoint(const std::string& path);

}  // namespace ts
