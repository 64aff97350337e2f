// The families' runs (internal to ts_playground): each fills one Ladder, checking every variant
// before Bench times it. families_memory.cpp: vector_add, copy, stride, transpose;
// families_compute.cpp: reduction, sgemm, tensor; families_warps.cpp: divergence, occupancy.
#pragma once
#include <cuda_runtime.h>

#include <functional>
#include <string>

#include "playground/bench.h"
#include "playground/ladder.h"
#include "playground/playground.h"
#include "playground/reference.h"

namespace ts::playground {

struct Context {
  Bench& bench;
  const Options& options;
  cudaDeviceProp prop{};
};

/// A new row: its name, its one line, the work of one launch (bytes or flops), own or library.
VariantResult variant(std::string name, std::string what_changed, double work, bool own = true);

/// Adds `v` to the ladder, then: `clear` (poisons the output so a stale result cannot pass), one
/// launch, a synchronisation, `check`; when the check passes, Bench times `launch`. A launch or
/// check that throws DeviceError fails the row (its message in the note) and the ladder goes on.
void run_variant(Context& ctx, Ladder& ladder, VariantResult v, const std::function<cudaError_t()>& launch,
                 const std::function<Check()>& check, const std::function<void()>& clear);

/// Adds `v` as a row that was not run (checked false, no time) with `why` in its note: e.g. bf16
/// on a card below compute capability 8.0.
void skip_variant(Ladder& ladder, VariantResult v, const std::string& why);

/// Fills `n` floats at `p` with 0xFF bytes (NaN), the poison of run_variant's `clear`.
void poison(float* p, std::int64_t n);

void run_vector_add(Context& ctx, Ladder& ladder, std::int64_t n);
void run_copy(Context& ctx, Ladder& ladder, std::int64_t n);
void run_stride(Context& ctx, Ladder& ladder, std::int64_t n);
void run_transpose(Context& ctx, Ladder& ladder, std::int64_t rows);
void run_reduction(Context& ctx, Ladder& ladder, std::int64_t n);
void run_sgemm(Context& ctx, Ladder& ladder, std::int64_t side);
void run_tensor(Context& ctx, Ladder& ladder, std::int64_t side);
void run_divergence(Context& ctx, Ladder& ladder, std::int64_t n);
void run_occupancy(Context& ctx, Ladder& ladder, std::int64_t n);

}  // namespace ts::playground
