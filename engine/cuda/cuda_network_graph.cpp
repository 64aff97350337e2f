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
  if (!g.graph) {
    capture_step(n, slot, g);
  } else if (!g.exec || g.made_under != trace::graph_instrumentation()) {
    trace::ScopedRange range(trace::RangeKind::other, "CUDA graph instantiate (the profiler's tracing changed)");
    instantiate_step(g);
  }
  {
    trace::ScopedRange range(trace::RangeKind::other, "CUDA graph launch");
    TS_CUDA_CHECK(cudaGraphLaunch(g.exec, compute_));
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
  instantiate_step(g);
}

void CudaNetwork::instantiate_step(StepGraph& g) {
  if (g.exec) {
    cudaGraphExecDestroy(g.exec);
    g.exec = nullptr;
  }
  // Read before instantiating: a change during it leaves a stale count, and the next launch instantiates again.
  const unsigned now = trace::graph_instrumentation();
  TS_CUDA_CHECK(cudaGraphInstantiate(&g.exec, g.graph, 0));
  g.made_under = now;
}

void CudaNetwork::destroy_graphs() noexcept {
  for (auto& [key, g] : graphs_) {
    if (g.exec) cudaGraphExecDestroy(g.exec);
    if (g.graph) cudaGraphDestroy(g.graph);
  }
  graphs_.clear();
}

}  // namespace ts::cuda
