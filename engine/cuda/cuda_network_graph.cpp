// CudaNetwork's CUDA-graph steps (NetworkOptions::cuda_graphs). The host cost of an eager step is every
// cuDNN and cuBLAS call and kernel launch of the forward, backward and update (30-120 us per cuDNN call
// under AMP on the H200), which leaves the GPU idle at small batch sizes. Here the step is captured once
// per (batch size, input slot) and replayed with one cudaGraphLaunch.
//
// What changes from step to step lives on the device, so one graph serves every step: the train-step
// counter (the dropout mask's step) and the count of updates (Adam's t; fp16's own count lives in its
// loss-scaler state) in graph_state_, advanced by the graph's last kernel; the loss and the fp16 scale
// go to a fixed scratch that the host then copies into the loss ring's slot of the step. The input
// copies and the normalisation stay outside the graph (they use the copy stream and its events). The
// convolution algorithms, the cuDNN/cuBLAS workspaces and every buffer are fixed before the first
// capture (the constructor's plan and warm-up), so nothing allocates or autotunes while capturing.
#include <cuda_runtime_api.h>

#include <cstdlib>

#include "base/cuda_check.h"
#include "engine/cuda/cuda_network.h"
#include "engine/host_trace.h"
#include "kernels/kernels.h"

namespace ts::cuda {

void CudaNetwork::graph_train_step(std::int64_t n, int slot) {
  if (!graph_counters_current_) {  // after eager steps, a restore or at the start: the host's counts
    const long long c[2] = {static_cast<long long>(step_), static_cast<long long>(opt_steps_)};
    TS_CUDA_CHECK(cudaMemcpyAsync(graph_counters(), c, sizeof c, cudaMemcpyHostToDevice, compute_));  // staged
    graph_counters_current_ = true;
  }
  StepGraph& g = graphs_[{n, slot}];
  if (!g.graph) capture_step(n, slot, g);
  const cudaGraphExec_t exec = step_exec(g);
  {
    trace::ScopedRange range(trace::RangeKind::other, "CUDA graph launch");
    TS_CUDA_CHECK(cudaGraphLaunch(exec, compute_));
  }
  TS_CUDA_CHECK(cudaEventRecord(slot_free_[slot], compute_));
  float* ring = static_cast<float*>(loss_ring_->ptr);
  TS_CUDA_CHECK(cudaMemcpyAsync(ring + step_ % kLossRing, graph_loss(), sizeof(float), cudaMemcpyDeviceToDevice, compute_));
  if (fp16())
    TS_CUDA_CHECK(cudaMemcpyAsync(ring + kLossRing + step_ % kLossRing, graph_scale(), sizeof(float),
                                  cudaMemcpyDeviceToDevice, compute_));
  ++step_;
  if (!fp16()) ++opt_steps_;
}

void CudaNetwork::capture_step(std::int64_t n, int slot, StepGraph& g) {
  trace::ScopedRange range(trace::RangeKind::other, "CUDA graph capture");
  cudaGraph_t graph = nullptr;
  TS_CUDA_CHECK(cudaStreamBeginCapture(compute_, cudaStreamCaptureModeThreadLocal));
  capturing_ = true;
  try {
    step_body(n, slot);
  } catch (...) {
    capturing_ = false;
    cudaStreamEndCapture(compute_, &graph);  // ends the capture the error interrupted
    if (graph) cudaGraphDestroy(graph);
    cudaGetLastError();
    throw;
  }
  capturing_ = false;
  TS_CUDA_CHECK(cudaStreamEndCapture(compute_, &graph));
  g.graph = graph;
}

namespace {
/// TRAINSCOPE_GRAPH_EXEC_PER_SWITCH=1: every change of the tracer's graph tracing drops a step's
/// executables, so each switch instantiates again (what the engine did first; a cost measurement, bench/).
bool exec_per_switch() {
  static const bool on = [] {
    const char* v = std::getenv("TRAINSCOPE_GRAPH_EXEC_PER_SWITCH");
    return v && *v && *v != '0';
  }();
  return on;
}
}  // namespace

cudaGraphExec_t CudaNetwork::step_exec(StepGraph& g) {
  const unsigned changes = trace::graph_tracing_changes();
  if (changes != g.tracing_changes && exec_per_switch())
    for (cudaGraphExec_t& e : g.exec)
      if (e) cudaGraphExecDestroy(e), e = nullptr;
  g.tracing_changes = changes;
  cudaGraphExec_t& exec = g.exec[static_cast<unsigned>(trace::graph_tracing())];
  if (!exec) {
    trace::ScopedRange range(trace::RangeKind::other, "CUDA graph instantiate");
    TS_CUDA_CHECK(cudaGraphInstantiate(&exec, g.graph, 0));
  }
  return exec;
}

void CudaNetwork::destroy_graphs() noexcept {
  for (auto& [key, g] : graphs_) {
    for (cudaGraphExec_t e : g.exec)
      if (e) cudaGraphExecDestroy(e);
    if (g.graph) cudaGraphDestroy(g.graph);
  }
  graphs_.clear();
}

}  // namespace ts::cuda
