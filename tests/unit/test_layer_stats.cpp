// layer_stats (layer_stats.h) on a hand-built step with exact numbers (host and GPU time per layer
// and phase, eval kept apart, kernels outside layers, unmatched kernels, the guessed runtime thread,
// the step filter, the memory estimate from the spec) and on a recorded H200 session.
#include <gtest/gtest.h>

#include "engine/host_trace.h"
#include "profiling/analysis/kernel_stats.h"
#include "profiling/analysis/layer_stats.h"
#include "profiling/event_source.h"

namespace ts::prof::analysis {
namespace {

using K = trace::RangeKind;
constexpr std::uint32_t kTid = 7;

// input [3,8,8] -> conv1 [4,8,8] (112 parameters) -> relu1 -> flatten [256] -> fc [10] (2570).
constexpr const char* kSpec =
    R"({"name":"Tiny","input":[3,8,8],"layers":[)"
    R"({"type":"Conv2d","name":"conv1","in_channels":3,"out_channels":4,"kernel_size":3,"padding":1},)"
    R"({"type":"ReLU","name":"relu1"},{"type":"Flatten"},)"
    R"({"type":"Linear","name":"fc","in_features":256,"out_features":10}]})";

struct Store {
  EventStore s;
  std::uint32_t corr = 1, runtime_thread = kTid;
  StringId launch = s.strings.intern("cudaLaunchKernel_v7000");
  StringId kname = s.strings.intern("some_kernel");
  void range(K k, std::int64_t a, std::int64_t b, const char* layer = nullptr, std::int64_t step = 1) {
    HostRangeRecord r;
    r.start = a, r.end = b, r.thread = kTid, r.kind = static_cast<std::uint8_t>(k), r.step = step;
    r.name = s.strings.intern(trace::range_kind_name(k));
    if (layer) r.layer = s.strings.intern(layer);
    s.append(s.host_ranges, r);
  }
  /// A launch call at `call` and its kernel of `dur` ns (starting well after the host side).
  void kernel(std::int64_t call, std::int64_t dur) {
    RuntimeRecord rt;
    rt.start = call, rt.end = call + 5, rt.thread = runtime_thread, rt.correlation = corr, rt.name = launch;
    s.append(s.runtime, rt);
    KernelRecord k;
    k.start = call + 10000, k.end = call + 10000 + dur, k.correlation = corr++, k.name = kname;
    s.append(s.kernels, k);
  }
  void step(std::int64_t gs, std::int64_t a, std::int64_t b) {
    StepRecord r;
    r.global_step = gs, r.start = a, r.end = b;
    s.append(s.steps, r);
    range(K::step, a, b, nullptr, gs);
  }
  /// One training step at offset t0 (1000 ns long) and its kernels.
  void training_step(std::int64_t gs, std::int64_t t0) {
    step(gs, t0, t0 + 1000);
    range(K::forward, t0 + 100, t0 + 200, "layer 0 (Conv2d conv1)", gs);
    kernel(t0 + 110, 100);
    kernel(t0 + 120, 50);
    range(K::forward, t0 + 200, t0 + 300, "layer 3 (Linear fc)", gs);
    kernel(t0 + 210, 30);
    range(K::loss, t0 + 300, t0 + 350, nullptr, gs);
    kernel(t0 + 310, 20);  // the loss: outside every layer
    range(K::backward, t0 + 350, t0 + 450, "layer 3 (Linear fc)", gs);
    kernel(t0 + 360, 40);
    range(K::backward, t0 + 450, t0 + 570, "layer 0 (Conv2d conv1)", gs);
    kernel(t0 + 460, 60);
  }
  void meta(const char* config = R"({"batch_size":16,"amp":"off","optimizer":"adam"})") {
    s.set_meta("run.model_spec", kSpec);
    s.set_meta("run.config", config);
  }
};

const LayerStats& row(const LayerReport& r, int spec_index) {
  for (const auto& l : r.layers)
    if (l.spec_index == spec_index) return l;
  throw std::runtime_error("no row for layer " + std::to_string(spec_index));
}

TEST(LayerStats, HostAndGpuTimePerLayerAndPhase) {
  Store b;
  b.training_step(1, 0);
  // Evaluation: a forward range inside "evaluate" counts as eval.
  b.range(K::eval, 2000, 3000, nullptr, 2);
  b.range(K::forward, 2100, 2200, "layer 0 (Conv2d conv1)", 2);
  b.kernel(2150, 70);
  KernelRecord stray;  // launched by a call that was not recorded
  stray.start = 50, stray.end = 80, stray.correlation = 4242, stray.name = b.kname;
  b.s.append(b.s.kernels, stray);
  const LayerReport r = layer_stats(b.s);
  ASSERT_EQ(r.layers.size(), 2u);
  EXPECT_EQ(r.layers[0].spec_index, 0);
  EXPECT_EQ(r.layers[1].spec_index, 3);
  EXPECT_EQ(r.layers[0].label, "layer 0 (Conv2d conv1)");
  EXPECT_EQ(r.steps, 1);
  EXPECT_EQ(r.step_ns, 1000);
  EXPECT_EQ(r.eval_ns, 1000);
  const LayerStats& conv = row(r, 0);
  EXPECT_EQ(conv.forward.calls, 1);
  EXPECT_EQ(conv.forward.host_ns, 100);
  EXPECT_EQ(conv.forward.kernels, 2);
  EXPECT_EQ(conv.forward.gpu_kernel_ns, 150);
  EXPECT_DOUBLE_EQ(conv.forward.host_share, 0.1);
  EXPECT_DOUBLE_EQ(conv.forward.gpu_share, 0.15);
  EXPECT_EQ(conv.backward.host_ns, 120);
  EXPECT_EQ(conv.backward.kernels, 1);
  EXPECT_EQ(conv.backward.gpu_kernel_ns, 60);
  EXPECT_EQ(conv.eval.calls, 1);
  EXPECT_EQ(conv.eval.host_ns, 100);
  EXPECT_EQ(conv.eval.gpu_kernel_ns, 70);
  EXPECT_DOUBLE_EQ(conv.eval.gpu_share, 0.07);  // of eval_ns
  const LayerStats& fc = row(r, 3);
  EXPECT_EQ(fc.forward.gpu_kernel_ns, 30);
  EXPECT_EQ(fc.backward.gpu_kernel_ns, 40);
  EXPECT_EQ(fc.eval.calls, 0);
  EXPECT_EQ(r.kernels_outside_layers, 1);
  EXPECT_EQ(r.kernel_ns_outside_layers, 20);
  EXPECT_EQ(r.kernels_unmatched, 1);
  EXPECT_FALSE(r.runtime_thread_guessed);
  EXPECT_FALSE(r.memory_from_spec);
  EXPECT_FALSE(conv.memory);
  EXPECT_NE(r.memory_note.find("run.model_spec"), std::string::npos);
}

TEST(LayerStats, UnmatchedRuntimeThreadIsTheOneWithMostLaunches) {
  Store b;
  b.runtime_thread = 2980405248u;  // a CUPTI thread id, as in tests/data's sessions
  b.training_step(1, 0);
  RuntimeRecord other;  // a second runtime thread with one launch
  other.start = 150, other.end = 151, other.thread = 1921478656u, other.correlation = 900, other.name = b.launch;
  b.s.append(b.s.runtime, other);
  const LayerReport r = layer_stats(b.s);
  EXPECT_TRUE(r.runtime_thread_guessed);
  EXPECT_EQ(row(r, 0).forward.gpu_kernel_ns, 150);
  EXPECT_EQ(row(r, 3).backward.gpu_kernel_ns, 40);
  EXPECT_EQ(r.kernel_ns_outside_layers, 20);
}

TEST(LayerStats, DriverApiLaunchGoesToThePrecedingCallsLayer) {
  Store b;
  b.corr = 5;  // a kernel with a lower correlation id than every call has no preceding call
  b.step(1, 0, 1000);
  b.range(K::forward, 100, 200, "layer 0 (Conv2d conv1)");
  b.kernel(110, 100);  // correlation 5
  auto driver = [&](std::uint32_t corr, std::int64_t start, std::int64_t dur) {
    KernelRecord k;  // cuLaunchKernel (cuBLAS): no runtime record of its own
    k.start = start, k.end = start + dur, k.correlation = corr, k.name = b.kname;
    b.s.append(b.s.kernels, k);
  };
  driver(b.corr++, 10200, 25);  // correlation 6: follows the call of correlation 5
  driver(1, 10300, 7);          // before every call: unmatched
  b.range(K::forward, 200, 300, "layer 3 (Linear fc)");
  b.kernel(210, 30);
  const LayerReport r = layer_stats(b.s);
  EXPECT_EQ(row(r, 0).forward.kernels, 2);
  EXPECT_EQ(row(r, 0).forward.gpu_kernel_ns, 125);
  EXPECT_EQ(row(r, 3).forward.gpu_kernel_ns, 30);
  EXPECT_EQ(r.kernels_by_preceding_call, 1);
  EXPECT_EQ(r.kernels_unmatched, 1);
}

TEST(LayerStats, StepFilter) {
  Store b;
  b.training_step(1, 0);
  b.training_step(2, 1000);
  b.training_step(3, 2000);
  LayerStatsOptions o;
  o.first_step = 2;
  const LayerReport r = layer_stats(b.s, o);
  EXPECT_EQ(r.steps, 2);
  EXPECT_EQ(r.step_ns, 2000);
  EXPECT_EQ(row(r, 0).forward.calls, 2);
  EXPECT_EQ(row(r, 0).forward.gpu_kernel_ns, 300);
  EXPECT_EQ(r.kernels_outside_layers, 2);
  EXPECT_DOUBLE_EQ(row(r, 0).forward.gpu_share, 300.0 / 2000);
  o.first_step = -1, o.last_step = 1;
  EXPECT_EQ(row(layer_stats(b.s, o), 3).backward.gpu_kernel_ns, 40);
}

TEST(LayerStats, MemoryFromTheSpec) {
  Store b;
  b.meta();
  b.training_step(1, 0);
  const LayerReport r = layer_stats(b.s);
  ASSERT_TRUE(r.memory_from_spec) << r.memory_note;
  EXPECT_EQ(r.batch_size, 16);
  EXPECT_EQ(r.activation_bytes, 4);
  EXPECT_EQ(r.optimizer, "adam");
  const LayerStats& conv = row(r, 0);
  EXPECT_EQ(conv.type, "Conv2d");
  EXPECT_EQ(conv.name, "conv1");
  ASSERT_EQ(conv.fused.size(), 2u);  // relu1 and the Flatten (named by its index)
  EXPECT_EQ(conv.fused[0], "relu1");
  ASSERT_TRUE(conv.memory);
  EXPECT_EQ(conv.memory->parameters, 4 * 3 * 3 * 3 + 4);
  EXPECT_EQ(conv.memory->weights_bytes, 112 * 4);
  EXPECT_EQ(conv.memory->gradients_bytes, 112 * 4);
  EXPECT_EQ(conv.memory->optimizer_bytes, 112 * 8);
  EXPECT_EQ(conv.memory->activations_bytes, 256 * 16 * 4);  // the Flatten's output, fused
  const LayerStats& fc = row(r, 3);
  EXPECT_EQ(fc.memory->parameters, 2570);
  EXPECT_EQ(fc.memory->activations_bytes, 10 * 16 * 4);
  EXPECT_EQ(r.memory_total.parameters, 112 + 2570);
  EXPECT_EQ(r.memory_total.total(), conv.memory->total() + fc.memory->total());
  // fp16 AMP: half activations, a half copy of the weights; SGD with momentum: one buffer.
  b.s.set_meta("run.config", R"({"batch_size":16,"amp":"fp16","optimizer":"sgd","momentum":0.9})");
  const LayerReport a = layer_stats(b.s);
  EXPECT_EQ(row(a, 0).memory->activations_bytes, 256 * 16 * 2);
  EXPECT_EQ(row(a, 0).memory->weights_bytes, 112 * 6);
  EXPECT_EQ(row(a, 0).memory->optimizer_bytes, 112 * 4);
}

// The CUDA engine's fused Conv2d -> ReLU -> MaxPool2d: the pool has no range of its own, and the
// convolution's row holds the pooled output, the full-size convolution output and the index bytes.
// Recorded without the fusion, the pool has its own row and the convolution's holds its own output.
TEST(LayerStats, MemoryOfAFusedMaxPool) {
  // input [3,8,8] -> conv1 [4,8,8] -> relu1 -> pool1 [4,4,4] -> flatten [64] -> fc [10].
  constexpr const char* kPoolSpec =
      R"({"name":"TinyPool","input":[3,8,8],"layers":[)"
      R"({"type":"Conv2d","name":"conv1","in_channels":3,"out_channels":4,"kernel_size":3,"padding":1},)"
      R"({"type":"ReLU","name":"relu1"},{"type":"MaxPool2d","name":"pool1","kernel_size":2,"stride":2},)"
      R"({"type":"Flatten"},{"type":"Linear","name":"fc","in_features":64,"out_features":10}]})";
  for (bool fused : {true, false}) {
    Store b;
    b.s.set_meta("run.model_spec", kPoolSpec);
    b.s.set_meta("run.config", R"({"batch_size":16,"amp":"bf16","optimizer":"adam"})");
    b.step(1, 0, 1000);
    b.range(K::forward, 100, 200, "layer 0 (Conv2d conv1)");
    if (!fused) b.range(K::forward, 200, 250, "layer 2 (MaxPool2d pool1)");
    b.range(K::forward, 250, 300, "layer 4 (Linear fc)");
    const LayerReport r = layer_stats(b.s);
    ASSERT_TRUE(r.memory_from_spec) << r.memory_note;
    const LayerStats& conv = row(r, 0);
    ASSERT_TRUE(conv.memory);
    if (fused) {
      ASSERT_EQ(conv.fused.size(), 3u);  // relu1, pool1 and the Flatten
      EXPECT_EQ(conv.fused[1], "pool1");
      EXPECT_EQ(conv.memory->activations_bytes, (64 * 2 + 256 * 2 + 64) * 16);  // pooled, raw bf16, index
    } else {
      EXPECT_EQ(conv.fused.size(), 1u);
      EXPECT_EQ(conv.memory->activations_bytes, 256 * 2 * 16);
      EXPECT_EQ(row(r, 2).memory->activations_bytes, 64 * 2 * 16);
    }
  }
}

TEST(LayerStats, BadSpecSaysWhyAndKeepsTimes) {
  Store b;
  b.s.set_meta("run.model_spec", R"({"name":"x","layers":[{"type":"Conv2d","in_channels":3})");
  b.training_step(1, 0);
  const LayerReport r = layer_stats(b.s);
  EXPECT_FALSE(r.memory_from_spec);
  EXPECT_NE(r.memory_note.find("run.model_spec"), std::string::npos) << r.memory_note;
  EXPECT_EQ(row(r, 0).forward.gpu_kernel_ns, 150);
  EXPECT_EQ(layer_index_of("layer 12 (Conv2d c)"), 12);
  EXPECT_EQ(layer_index_of("layer x"), -1);
  EXPECT_EQ(layer_index_of("conv1"), -1);
  EXPECT_TRUE(layer_stats(EventStore{}).layers.empty());
}

TEST(LayerStats, RecordedSessionEveryConvLayerHasKernelsBothWays) {
  const auto src = open_session(TRAINSCOPE_SOURCE_DIR "/tests/data/gpu_b128_nw4.tsession");
  const EventStore& s = src->store();
  const LayerReport r = layer_stats(s);
  ASSERT_TRUE(r.memory_from_spec) << r.memory_note;
  EXPECT_TRUE(r.runtime_thread_guessed);  // this recording's runtime calls carry CUPTI thread ids
  EXPECT_EQ(r.batch_size, 128);
  // cuBLAS's CUTLASS kernels (398 here) come through the driver API: attributed by the preceding call.
  EXPECT_EQ(r.kernels_by_preceding_call, 398);
  EXPECT_EQ(r.kernels_unmatched, 0);
  int convs = 0;
  std::int64_t attributed = 0;
  for (const auto& l : r.layers) {
    attributed += l.forward.gpu_kernel_ns + l.backward.gpu_kernel_ns + l.eval.gpu_kernel_ns;
    ASSERT_GE(l.spec_index, 0) << l.label;
    if (l.type != "Conv2d") continue;
    ++convs;
    EXPECT_GT(l.forward.kernels, 0) << l.label;
    EXPECT_GT(l.backward.kernels, 0) << l.label;
    EXPECT_GT(l.forward.gpu_kernel_ns, 0) << l.label;
    EXPECT_GT(l.backward.gpu_kernel_ns, 0) << l.label;
    EXPECT_GT(l.eval.kernels, 0) << l.label;
    EXPECT_EQ(l.forward.calls, 80) << l.label;  // 80 training steps, one range each
  }
  EXPECT_EQ(convs, 2);
  // conv1: Conv2d(3, 32, 3): 3*32*9 + 32 parameters; its output [32,32,32] (ReLU fused) x 128 x fp32.
  const LayerStats& conv1 = row(r, 0);
  EXPECT_EQ(conv1.memory->parameters, 896);
  EXPECT_EQ(conv1.memory->activations_bytes, 32LL * 32 * 32 * 128 * 4);
  ASSERT_EQ(conv1.fused.size(), 1u);
  EXPECT_EQ(conv1.fused[0], "relu1");
  // Layers + outside layers never exceed every kernel's time; layers hold most of it.
  const std::int64_t all = total_kernel_ns(kernel_groups(s));
  EXPECT_LE(attributed + r.kernel_ns_outside_layers, all);
  EXPECT_GT(attributed, all / 2);
}

TEST(LayerStats, EveryRecordedSessionAttributesEveryKernel) {
  for (const char* name : {"gpu_b128_nw4", "gpu_b128_nw0_augment", "gpu_b16_nw4"}) {
    const auto src = open_session(std::string(TRAINSCOPE_SOURCE_DIR "/tests/data/") + name + ".tsession");
    const LayerReport r = layer_stats(src->store());
    EXPECT_EQ(r.kernels_unmatched, 0) << name;
    ASSERT_EQ(r.layers.size(), 6u) << name;
    for (const auto& l : r.layers) {
      if (l.type != "Conv2d" && l.type != "Linear") continue;
      EXPECT_GT(l.forward.gpu_kernel_ns, 0) << name << " " << l.label;
      EXPECT_GT(l.backward.gpu_kernel_ns, 0) << name << " " << l.label;
    }
  }
}

}  // namespace
}  // namespace ts::prof::analysis
