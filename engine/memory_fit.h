// Out-of-memory advice shared by the backends and the trainer. A run's allocator bytes are a fixed
// part (parameters, gradients, optimizer state, workspaces) plus a part per sample of the batch
// (activations, their gradients, the input); from that follow the largest batch size that fits a
// card (the real one, or the simulated one of --memory-limit: the cap is then the card's size) and
// the gradient-accumulation split that keeps the effective batch (batch size x accumulate) the same,
// the fix for an OOM that changes no result, only the steps per update. The CUDA network estimates
// its footprint from its own plan (cuda_network.cpp); the CPU backend's is measured
// (measure_network_footprint), since its layers allocate as they please.
#pragma once
#include <cstdint>
#include <string>

#include "base/errors.h"
#include "engine/model_spec.h"
#include "engine/network.h"

namespace ts {

/// A run's allocator bytes at batch size N: fixed_bytes + per_sample_bytes x N.
struct MemoryFootprint {
  std::int64_t fixed_bytes = 0;
  std::int64_t per_sample_bytes = 0;
  std::int64_t bytes(std::int64_t batch_size) const { return fixed_bytes + per_sample_bytes * batch_size; }
};

/// The largest batch size whose footprint fits `capacity_bytes` with 10 % of the per-sample part
/// kept free for what the estimate misses (cuDNN/cuBLAS internals, fragmentation, the last short
/// batch's primitives), rounded down to a multiple of 32 above 64; 0 when not even 1 fits or the
/// footprint is unknown (per_sample_bytes <= 0).
std::int64_t batch_size_that_fits(const MemoryFootprint& f, std::int64_t capacity_bytes);

/// Micro-batches of at most `fits` images with the same effective batch E = batch_size x accumulate.
struct MicroBatches {
  std::int64_t batch_size = 0;  // images per micro-batch (<= fits)
  int accumulate = 1;           // micro-batches per optimizer step (--accumulate)
  bool exact = true;            // batch_size x accumulate == E (else the nearest below E)
};
/// The smallest accumulation k >= ceil(E / fits) that divides E (searched up to 2 ceil(E / fits) + 64),
/// with batch_size E / k; when none divides, k = ceil(E / fits) and batch_size floor(E / k), not exact.
/// `fits` <= 0 gives {0, 1}.
MicroBatches same_effective_batch(std::int64_t batch_size, int accumulate, std::int64_t fits);

/// The sentence appended to an OOM message: ": a batch size of at most F fits <where> (lower
/// --batch-size); for the same effective batch of E, use --batch-size B --accumulate K (gradient
/// accumulation), or --amp bf16 (activations in 16 bits)". `amp_possible`: the run is fp32 on CUDA
/// (the CPU backend has no AMP: the sentence says it is a GPU option). `where`: "on this GPU",
/// "on the simulated 8 GiB card". fits <= 0: ": not even a batch of 1 fits <where>".
std::string oom_fix_advice(std::int64_t batch_size, int accumulate, std::int64_t fits, bool amp_possible,
                           bool cuda, const std::string& where);

/// A copy of `e` with `message` and the advice fields (suggested batch size and accumulation for the
/// same effective batch) set from `fits`.
OutOfMemoryError with_oom_advice(const OutOfMemoryError& e, const std::string& message, std::int64_t batch_size,
                                 int accumulate, std::int64_t fits);

/// Measures the allocator footprint of `spec` with `options` on the CPU backend: builds two uncapped
/// networks (max batch 1 and 9, accumulation on so its buffers count) and runs one train step and one
/// evaluation batch on each (primitives are created at first use), then fits the line through the
/// two totals of reserved bytes. Needs a model that takes CIFAR-10 images ([3, 32, 32]). Returns {}
/// (unknown) when the measurement fails. Costs two small networks' construction: call it after an OOM.
MemoryFootprint measure_network_footprint(const ModelSpec& spec, NetworkOptions options);

/// Host memory (bytes) a new allocation can have: /proc/meminfo's MemAvailable, lowered to what the
/// process's cgroup (v2 memory.max - memory.current) still allows; -1 when neither can be read.
std::int64_t host_available_bytes();

/// A lower bound of a CPU run's memory from shape inference alone (cheap: no network): per sample,
/// every layer's output and its gradient in fp32 plus the input image; fixed, the parameters and
/// their gradients in fp32.
MemoryFootprint footprint_lower_bound(const ModelSpec& spec);

/// The CPU backend's up-front check, as the CUDA plan checks the card: throws OutOfMemoryError
/// ("host memory: at batch size N the run needs about X ... this machine has Y available") with the
/// batch size that fits and --accumulate for the same effective batch, when footprint `f` at
/// `batch_size` needs more than `available_bytes`. Does nothing when `available_bytes` < 0 (unknown).
/// `at_least`: `f` is a lower bound (the message says "at least", not "about").
void check_host_memory(const MemoryFootprint& f, std::int64_t batch_size, int accumulate, std::int64_t available_bytes,
                       bool at_least = false);

}  // namespace ts
