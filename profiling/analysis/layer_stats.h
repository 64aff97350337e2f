// Layer attribution: the time each layer of the user's model takes, forward and backward, on the
// host and on the GPU, and the memory it holds. Qt-free; the layer table
// (widgets/panels/layer_time_table.h) shows it.
//
// Measured. The trainer opens a host range per layer call (engine/host_trace.h, kind forward or
// backward, layer = "layer 3 (Conv2d conv2)"). host_ns sums those ranges: the CPU time spent
// issuing the layer (on a GPU run, mostly launching). GPU time: a kernel belongs to the layer whose
// host range (on the trainer thread) holds the start of the runtime call that launched it (matched
// by correlation id; a kernel launched through the driver API, which has no runtime record, by the
// trainer's preceding runtime call: see kernels_by_preceding_call); gpu_kernel_ns sums those
// kernels' durations (CUPTI), wherever they ran later.
// A forward range inside an evaluation range ("evaluate") counts as eval, not forward.
//
// CUDA graphs (--cuda-graphs on; PyTorch's torch.cuda.graph). The engine captures the whole step
// once per batch shape, layer ranges and all, and then replays it with one cudaGraphLaunch a step.
// A replayed kernel's correlation id is that cudaGraphLaunch's, which lies in no layer range; its
// CUDA-graph node (KernelRecord::graph_node) is what says where it came from: the session's
// graph_nodes table (profiling/cupti/graph_nodes.h) maps each node to the launch that created it
// while the stream was captured (cudaLaunchKernel inside the layer's range, at capture), and the
// kernel is attributed as if it had that launch's correlation id: to the layer range that held the
// capture-time launch, in the phase of that range. It counts in the step of its replay (the step
// holding its cudaGraphLaunch), so the step filter keeps a replay's kernels with their step, not with
// the step that captured them. Host time and calls stay what the host did: with graphs, the layers'
// ranges exist only in the capturing steps, so calls and host_ns count captures, not steps. A graph
// kernel whose node maps to nothing (sessions recorded before graph nodes were, CUPTI's callbacks
// refused) is attributed by its cudaGraphLaunch as before, outside every layer, and counted in
// LayerReport::graph_kernels_unmapped.
//
// Computed from the model spec (meta run.model_spec, engine/model_spec.h), NOT measured: parameter
// counts and activation sizes by shape inference, times the batch size (meta run.config) and the
// bytes per element. The CUDA backend fuses a ReLU/Dropout/Flatten into the op before it (its
// epilogue), and a 2x2 max pool after Conv2d -> ReLU into that convolution (engine/pool_fusion.h), so
// such layers have no range of their own: they are listed in LayerStats::fused and their memory counts
// with the op that runs them.
//
// Threads. Runtime calls of older sessions carry a CUPTI thread id that matches no host range
// thread; then the runtime thread with the most kernel launches is taken as the trainer's (as
// analyze() does) and LayerReport::runtime_thread_guessed says so.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profiling/event_store.h"

namespace ts::prof::analysis {

struct LayerStatsOptions {
  /// Only layer ranges whose host range step (global step, 1-based) lies in [first_step, last_step]
  /// and the StepRecords of those steps. -1 = no bound. Evaluation ranges carry the step they
  /// followed and are filtered the same way.
  std::int64_t first_step = -1, last_step = -1;
  /// Read at most these row counts (PanelHub::counts()); nullptr: the tables' sizes now.
  const StoreCounts* limit = nullptr;
};

/// One layer in one phase. Times in ns.
struct PhaseTime {
  std::int64_t calls = 0;          // host ranges (one per layer call: per step, or per eval batch)
  std::int64_t host_ns = 0;        // sum of their durations
  std::int64_t kernels = 0;        // kernels launched inside them
  std::int64_t gpu_kernel_ns = 0;  // sum of those kernels' durations
  /// host_ns and gpu_kernel_ns over the reference time: LayerReport::step_ns for forward and
  /// backward, LayerReport::eval_ns for eval (0 when the reference is 0).
  double host_share = 0, gpu_share = 0;
};

/// Memory a layer holds on the device, bytes; ESTIMATES from the model spec (see the file comment).
struct LayerMemory {
  std::int64_t parameters = 0;       // learnable parameters (shape inference)
  std::int64_t weights_bytes = 0;    // parameters x 4 (fp32 master) + parameters x 2 with AMP (the half copy)
  std::int64_t gradients_bytes = 0;  // parameters x 4 (gradients stay fp32 under AMP)
  std::int64_t optimizer_bytes = 0;  // Adam/AdamW: parameters x 8 (exp_avg, exp_avg_sq); SGD with momentum: x 4
  /// The op's output kept for backward: numel(output of the last fused layer) x batch size x bytes
  /// per element (4 fp32, 2 under fp16/bf16 AMP); with a max pool fused into the row, also the
  /// full-size convolution output it keeps and its index, one byte per pooled element.
  std::int64_t activations_bytes = 0;
  std::int64_t total() const { return weights_bytes + gradients_bytes + optimizer_bytes + activations_bytes; }
  void add(const LayerMemory& o);
};

struct LayerStats {
  std::string label;   // the host ranges' layer string: "layer 3 (Conv2d conv2)"
  int spec_index = -1; // index in the model spec ("layer N"), -1 when the label names none
  std::string type;    // spec layer type ("Conv2d"), "" without a spec
  std::string name;    // spec layer name ("conv2")
  std::vector<std::string> fused;  // later spec layers with no range of their own ("relu2")
  PhaseTime forward, backward, eval;
  std::optional<LayerMemory> memory;  // nullopt without a usable spec
};

struct LayerReport {
  std::vector<LayerStats> layers;  // by spec index; labels without one last, by label
  std::int64_t steps = 0;          // StepRecords in the step filter
  std::int64_t step_ns = 0;        // sum of their durations (end - start)
  std::int64_t eval_ns = 0;        // sum of the trainer's evaluation ranges in the filter
  // Kernels launched by the trainer during the steps but outside every layer range (H2D copy,
  // loss, optimizer, ...), and kernels whose launching call was not found (other threads, or a
  // runtime record lost).
  std::int64_t kernels_outside_layers = 0, kernel_ns_outside_layers = 0;
  std::int64_t kernels_unmatched = 0;
  /// Kernels with no runtime call of their correlation id (launched through the driver API, as
  /// cuBLAS launches its CUTLASS kernels), attributed by the trainer's runtime call with the next
  /// lower correlation id (CUPTI hands ids out in call order across runtime and driver APIs), when
  /// that call started before the kernel.
  std::int64_t kernels_by_preceding_call = 0;
  /// Kernels replayed from a CUDA graph, attributed through their graph node's capture-time launch
  /// (see the file comment), and those whose node maps to none (attributed by their cudaGraphLaunch:
  /// outside every layer).
  std::int64_t kernels_by_graph_node = 0, graph_kernels_unmapped = 0;
  bool runtime_thread_guessed = false;  // see the file comment
  // The memory estimate's inputs.
  bool memory_from_spec = false;
  std::string memory_note;         // why there is none ("no run.model_spec in the session"), or ""
  std::int64_t batch_size = 0;
  int activation_bytes = 4;        // bytes per activation element
  std::string optimizer;           // "adam", "adamw", "sgd" ("" unknown)
  LayerMemory memory_total;        // sum over the listed layers
};

/// Layer attribution of `store` (any thread; a consistent prefix). Never throws: a malformed spec
/// or config leaves memory out and says why in memory_note.
LayerReport layer_stats(const EventStore& store, const LayerStatsOptions& options = {});

/// "layer 3 (Conv2d conv2)" -> 3; -1 when the label does not start with "layer N".
int layer_index_of(const std::string& label);

}  // namespace ts::prof::analysis
