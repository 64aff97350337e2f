// What the host did while the GPU idled (profiling/analysis/host_idle.cpp) on hand-built sessions of
// recorded programs: the main-thread input pipeline is input-bound and never launch-bound (lean and
// full), tiny kernels behind the host's dispatch are launch-bound in lean mode from the gaps alone,
// Python work between steps is host-bound only while the thread computes, the Python frames and
// sync call sites as evidence, and AMP read from the kernels' names.
#include <gtest/gtest.h>

#include "engine/host_trace.h"
#include "profiling/analysis/analysis.h"

namespace ts::prof::analysis {
namespace {

using K = trace::RangeKind;
constexpr std::uint32_t kTid = 9;
constexpr std::int64_t kUs = 1000, kMs = 1'000'000;

/// A recorded program (session.source injected) whose steps came from optimizer.step calls.
struct Program {
  EventStore s;
  std::uint32_t corr = 1;
  StringId kname = s.strings.intern("void at::native::vectorized_elementwise_kernel<4>()");
  Program() {
    s.set_meta("session.source", "injected (trainscope-run -- PROGRAM; profiling/inject)");
    s.set_meta("steps.rule", "optimizer.step calls (Python insight)");
    s.set_meta("steps.thread", std::to_string(kTid));
    s.set_meta("python.insight", "lean");
    s.set_meta("device.kind", "cuda");
    s.set_meta("device.compute_capability", "9.0");
    s.set_meta("device.multiprocessors", "132");
  }
  void range(K k, std::int64_t a, std::int64_t b, const char* name = "") {
    HostRangeRecord r;
    r.start = a, r.end = b, r.thread = kTid, r.kind = static_cast<std::uint8_t>(k), r.name = s.strings.intern(name);
    s.append(s.host_ranges, r);
  }
  void step(std::int64_t gs, std::int64_t a, std::int64_t b) {
    StepRecord r;
    r.global_step = gs, r.start = a, r.end = b;
    s.append(s.steps, r);
  }
  /// A kernel [a, b); with `launch_at`, also its launch call (full mode), else none (lean).
  void kernel(std::int64_t a, std::int64_t b, std::int64_t launch_at = -1, StringId name = 0) {
    KernelRecord k;
    k.start = a, k.end = b, k.correlation = corr, k.name = name ? name : kname;
    KernelConfig c;
    c.grid[0] = 264, c.grid[1] = c.grid[2] = 1, c.block[0] = 256, c.block[1] = c.block[2] = 1;
    k.config = s.intern_config(c);
    s.append(s.kernels, k);
    if (launch_at >= 0) {
      RuntimeRecord rt;
      rt.start = launch_at, rt.end = launch_at + 5 * kUs, rt.thread = kTid, rt.correlation = corr;
      rt.name = s.strings.intern("cudaLaunchKernel_v7000");
      s.append(s.runtime, rt);
    }
    ++corr;
  }
  void cpu(double pct, std::int64_t until) {
    s.append(s.series, SeriesRecord{1, s.strings.intern("cpu.percent.python3." + std::to_string(kTid)), s.strings.intern("%")});
    for (std::int64_t t = 0; t < until; t += 100 * kMs) s.append(s.samples, SampleRecord{t, 1, pct});
  }
  /// Python frames: 1 main (train.py:80) <- 2 (train.py:line, fn); samples every ms in [a, b).
  void python(std::int64_t a, std::int64_t b, int line, const char* fn) {
    if (s.py_frames.size() == 0) {
      s.append(s.py_frames, PyFrameRecord{1, s.strings.intern("main"), s.strings.intern("/home/u/train.py"), 80});
      s.append(s.py_stacks, PyStackRecord{1, 0, 1});
    }
    const auto id = static_cast<std::uint32_t>(s.py_frames.size() + 1);
    s.append(s.py_frames, PyFrameRecord{id, s.strings.intern(fn), s.strings.intern("/home/u/train.py"), line});
    s.append(s.py_stacks, PyStackRecord{id, 1, id});
    for (std::int64_t t = a; t < b; t += kMs) s.append(s.py_samples, PySampleRecord{t, kTid, id});
  }
};

bool fired(const Report& r, const std::string& id) {
  for (const auto& v : r.verdicts)
    if (v.id == id) return true;
  return false;
}
const Verdict* verdict(const Report& r, const std::string& id) {
  for (const auto& v : r.verdicts)
    if (v.id == id) return &v;
  return nullptr;
}

/// 12 steps of 10 ms: a 9 ms data fetch on the stepping thread, then 1 ms of forward/backward
/// with a few kernels. `full`: the kernels' launch calls are recorded (and launched late: host wait).
void main_thread_loader(Program& p, bool full, bool python_ranges) {
  for (int i = 0; i < 12; ++i) {
    const std::int64_t t = i * 10 * kMs;
    p.step(i + 1, t, t + 10 * kMs);
    if (python_ranges) p.range(K::data_wait, t, t + 9 * kMs, "data");
    p.range(K::forward, t + 9 * kMs, t + 9500 * kUs, "forward");
    for (int k = 0; k < 5; ++k) {
      const std::int64_t a = t + 9 * kMs + k * 200 * kUs;
      p.kernel(a + 20 * kUs, a + 120 * kUs, full ? a : -1);
    }
  }
  p.python(0, 120 * kMs, 31, "__getitem__");
  p.cpu(98, 120 * kMs);
}

}  // namespace

TEST(HostIdle, AMainThreadInputPipelineIsInputBoundNeverLaunchBound) {
  for (bool full : {false, true}) {
    Program p;
    main_thread_loader(p, full, true);
    const Report r = analyze(p.s);
    ASSERT_EQ(r.steps, 12) << full;
    ASSERT_TRUE(r.idle_by_host);
    EXPECT_GT(r.idle_by_host->input, 0.85 * r.wall_ns) << full;
    EXPECT_TRUE(fired(r, "input_bound")) << full;
    EXPECT_FALSE(fired(r, "launch_bound")) << full;
    EXPECT_FALSE(fired(r, "host_bound")) << full;
    const Verdict* v = verdict(r, "input_bound");
    ASSERT_TRUE(v && !v->frames.empty());
    EXPECT_EQ(v->frames[0].where, "train.py:31");
    EXPECT_EQ(v->frames[0].function, "__getitem__");
    EXPECT_GT(v->frames[0].pct, 99.0);
  }
}

TEST(HostIdle, WithoutThePythonRangesLongGapsAreTheHostsOwnWorkNotLaunching) {
  // Full mode, no data ranges: every gap is "host wait", but 9 ms gaps are no launch cost.
  Program p;
  main_thread_loader(p, true, false);
  const Report r = analyze(p.s);
  ASSERT_TRUE(r.idle_by_host);
  EXPECT_FALSE(fired(r, "launch_bound"));
  EXPECT_TRUE(fired(r, "host_bound"));  // the thread computed (98 % CPU) while the GPU idled
  EXPECT_GT(r.idle_by_host->host, 0.8 * r.wall_ns);
}

/// 12 steps of 2 ms (forward, backward), each launching 100 kernels of `kernel_us` one every 20 us
/// (lean mode: no launch calls), the stepping thread at 99 % CPU.
void launch_stream(Program& p, int kernel_us) {
  for (int i = 0; i < 12; ++i) {
    const std::int64_t t = i * 2 * kMs;
    p.step(i + 1, t, t + 2 * kMs);
    p.range(K::forward, t, t + kMs, "forward");
    p.range(K::backward, t + kMs, t + 2 * kMs, "backward");
    for (int k = 0; k < 100; ++k) p.kernel(t + k * 20 * kUs + (20 - kernel_us) * kUs, t + (k + 1) * 20 * kUs);
  }
  p.cpu(99, 24 * kMs);
}

TEST(HostIdle, TinyKernelsBehindTheHostsDispatchAreLaunchBoundInLeanMode) {
  Program p;
  launch_stream(p, 4);  // 4 us each, 16 us apart
  const Report r = analyze(p.s);
  ASSERT_TRUE(r.idle_by_host && r.median_launch_gap_ns);
  EXPECT_NEAR(*r.median_launch_gap_ns, 16 * kUs, 1);
  ASSERT_TRUE(r.median_launch_interval_ns);
  EXPECT_NEAR(*r.median_launch_interval_ns, 20 * kUs, 1);  // one kernel's start to the next's
  EXPECT_FALSE(r.median_launch_ns);  // lean: no launch calls
  EXPECT_GT(r.idle_by_host->launching, 0.75 * r.wall_ns);
  const Verdict* v = verdict(r, "launch_bound");
  ASSERT_TRUE(v);
  EXPECT_EQ(v->severity, "high");
  EXPECT_FALSE(fired(r, "host_bound"));
}

TEST(HostIdle, KernelsLongerThanTheGapButShorterThanTheLaunchIntervalAreLaunchBound) {
  // 10 us kernels launched every 20 us: the GPU idles half the step waiting on each launch. The
  // 10 us gap is no shorter than a kernel, so the gap is no measure of the launch cost; the interval is.
  for (int us : {10, 19}) {
    Program p;
    launch_stream(p, us);
    const Report r = analyze(p.s);
    ASSERT_TRUE(r.median_launch_interval_ns && r.median_kernel_ns);
    EXPECT_NEAR(*r.median_launch_interval_ns, 20 * kUs, 1);
    EXPECT_NEAR(*r.median_kernel_ns, us * kUs, 1);
    const Verdict* v = verdict(r, "launch_bound");
    ASSERT_EQ(v != nullptr, us == 10) << us;  // 19 us kernels leave the GPU idle 5 %: below the threshold
    if (v) {
      EXPECT_EQ(v->severity, "high");
    }
  }
}

TEST(HostIdle, PythonWorkBetweenStepsIsHostBoundOnlyWhileTheThreadComputes) {
  for (double cpu : {95.0, 10.0}) {
    Program p;
    for (int i = 0; i < 12; ++i) {
      const std::int64_t t = i * 10 * kMs;
      p.step(i + 1, t, t + 10 * kMs);
      p.range(K::forward, t, t + 2 * kMs, "forward");
      p.kernel(t + 10 * kUs, t + 2 * kMs);
      p.python(t + 2 * kMs, t + 10 * kMs, 57, "build_mask");  // numpy work outside every phase
    }
    p.cpu(cpu, 120 * kMs);
    const Report r = analyze(p.s);
    ASSERT_TRUE(r.stepping_thread_cpu_pct);
    EXPECT_NEAR(*r.stepping_thread_cpu_pct, cpu, 0.01);
    EXPECT_EQ(fired(r, "host_bound"), cpu > 50) << cpu;
    EXPECT_FALSE(fired(r, "launch_bound"));
    if (const Verdict* v = verdict(r, "host_bound")) {
      ASSERT_FALSE(v->frames.empty());
      EXPECT_EQ(v->frames[0].where, "train.py:57");
    }
  }
}

TEST(HostIdle, SyncBoundNamesTheBlockingCallsLine) {
  Program p;
  for (int i = 0; i < 12; ++i) {
    const std::int64_t t = i * 10 * kMs;
    p.step(i + 1, t, t + 10 * kMs);
    p.range(K::forward, t, t + kMs, "forward");
    p.kernel(t + 10 * kUs, t + 5 * kMs);
    p.range(K::other, t + kMs, t + 9 * kMs, "sync: .item() train.py:41");
    p.range(K::sync, t + kMs + 10 * kUs, t + 9 * kMs, "cudaStreamSynchronize");
  }
  const Report r = analyze(p.s);
  const Verdict* v = verdict(r, "sync_bound");
  ASSERT_TRUE(v);
  ASSERT_FALSE(v->frames.empty());
  EXPECT_EQ(v->frames[0].where, "train.py:41");
  EXPECT_EQ(v->frames[0].function, ".item()");
  EXPECT_NEAR(v->frames[0].pct, 100, 0.01);
}

TEST(HostIdle, AmpIsReadFromTheKernelsThatRan) {
  for (const char* name : {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", "volta_sgemm_128x64_nn"}) {
    Program p;
    const StringId id = p.s.strings.intern(name);
    for (int i = 0; i < 12; ++i) {
      const std::int64_t t = i * 10 * kMs;
      p.step(i + 1, t, t + 10 * kMs);
      p.kernel(t, t + 9 * kMs, -1, id);
    }
    const Report r = analyze(p.s);
    const bool bf16 = std::string(name).find("bf16") != std::string::npos;
    EXPECT_EQ(r.amp_from_kernels, bf16 ? "bf16" : "") << name;
    EXPECT_EQ(fired(r, "amp_eligible"), !bf16) << name;
    EXPECT_NE(to_text(r).find(bf16 ? "amp bf16 (from kernels" : "amp fp32/tf32 (from kernels)"), std::string::npos);
  }
}

TEST(HostIdle, KernelPrecisionFromCommonNames) {
  EXPECT_EQ(kernel_precision("nvjet_sm90_hss_320x128_64x3_2x1_v_bz_coopA_NNN"), "fp16");
  EXPECT_EQ(kernel_precision("nvjet_tst_128x256_64x4_1x2_h_bz_coopA_TNT"), "tf32");
  EXPECT_EQ(kernel_precision("cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8"), "bf16");
  EXPECT_EQ(kernel_precision("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn"), "fp16");
  EXPECT_EQ(kernel_precision("sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc"), "tf32");
  EXPECT_EQ(kernel_precision("volta_sgemm_128x64_nn"), "");
}

}  // namespace ts::prof::analysis
