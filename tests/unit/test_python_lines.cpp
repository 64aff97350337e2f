// The stepping thread's Python lines in a range (profiling/analysis/python_lines.h) on a hand-built
// recorded program: counts and shares per line, in the range and while the GPU idled; the analysed
// steps by default, agreeing with the Report's evidence (frames_by_cause["idle"], python_samples);
// the most frequent stack of a line, outermost first; a line inside a library call; another thread
// left out; the resolution rules of StackNames.
#include <gtest/gtest.h>

#include "engine/host_trace.h"
#include "profiling/analysis/analysis.h"
#include "profiling/analysis/python_lines.h"

namespace ts::prof::analysis {
namespace {

constexpr std::uint32_t kTid = 9;
constexpr std::int64_t kMs = 1'000'000;

/// Step i (1-based global step i + 1) of 10 ms at i * 10 ms on kTid, with one kernel [t, t + kernel_ns).
void add_step(EventStore& s, int i, std::int64_t kernel_ns) {
  const std::int64_t t = i * 10 * kMs;
  StepRecord st;
  st.global_step = i + 1, st.start = t, st.end = t + 10 * kMs;
  s.append(s.steps, st);
  HostRangeRecord r;
  r.start = t, r.end = t + 10 * kMs, r.thread = kTid, r.kind = static_cast<std::uint8_t>(trace::RangeKind::step);
  r.name = s.strings.intern("step");
  s.append(s.host_ranges, r);
  KernelRecord k;
  k.start = t, k.end = t + kernel_ns, k.correlation = static_cast<std::uint32_t>(i + 1), k.name = s.strings.intern("k");
  s.append(s.kernels, k);
}

/// 12 steps of 10 ms (step ranges on kTid). Each step: a kernel [t, t+4 ms); samples every ms: 4
/// while the kernel runs on train.py:40 (forward, inside torch's conv.py), 6 in the gap on
/// train.py:52 (load_batch) — one of them (t + 9 ms) on train.py:60 (log) instead.
struct Program {
  EventStore s;
  StringId file = s.strings.intern("/home/u/train.py");
  StringId torch_file = s.strings.intern("/usr/lib/python3/dist-packages/torch/nn/modules/conv.py");
  void frame(std::uint32_t id, const char* fn, StringId f, int line) {
    s.append(s.py_frames, PyFrameRecord{id, s.strings.intern(fn), f, line});
  }
  Program() {
    s.set_meta("session.source", "injected (trainscope-run -- PROGRAM; profiling/inject)");
    frame(1, "main", file, 80);
    frame(2, "forward", file, 40);
    frame(3, "_conv_forward", torch_file, 549);
    frame(4, "load_batch", file, 52);
    frame(5, "log", file, 60);
    s.append(s.py_stacks, PyStackRecord{1, 0, 1});  // main
    s.append(s.py_stacks, PyStackRecord{2, 1, 2});  // main > forward
    s.append(s.py_stacks, PyStackRecord{3, 2, 3});  // main > forward > _conv_forward
    s.append(s.py_stacks, PyStackRecord{4, 1, 4});  // main > load_batch
    s.append(s.py_stacks, PyStackRecord{5, 1, 5});  // main > log
    for (int i = 0; i < 12; ++i) {
      const std::int64_t t = i * 10 * kMs;
      add_step(s, i, 4 * kMs);
      for (int m = 0; m < 10; ++m) {
        // The forward line's stacks: mostly inside conv (3), once on the line itself (2) at m = 0.
        const std::uint32_t stack = m < 4 ? (m == 0 ? 2 : 3) : m == 9 ? 5 : 4;
        s.append(s.py_samples, PySampleRecord{t + m * kMs + kMs / 2, kTid, stack});
      }
    }
    s.append(s.py_samples, PySampleRecord{5 * kMs, kTid + 1, 4});  // another thread: never counted
  }
};

const PythonLine* line(const PythonLines& p, const std::string& where, const std::string& innermost = "") {
  for (const auto& l : p.lines)
    if (l.where == where && l.innermost == innermost) return &l;
  return nullptr;
}

TEST(PythonLines, CountsEachLineInTheRangeAndWhileTheGpuIdled) {
  Program p;
  const PythonLines r = python_lines(p.s, 0, 120 * kMs);
  EXPECT_FALSE(r.analysed_steps);
  EXPECT_EQ(r.recorded_samples, 121);
  EXPECT_EQ(r.samples, 120);
  EXPECT_EQ(r.idle_samples, 72);
  EXPECT_TRUE(r.gpu_recorded);
  ASSERT_EQ(r.lines.size(), 3u);  // train.py:40 once, on the line itself or inside conv
  EXPECT_EQ(r.lines[0].where, "train.py:52");  // most samples first
  const PythonLine* load = line(r, "train.py:52");
  ASSERT_TRUE(load);
  EXPECT_EQ(load->function, "load_batch");
  EXPECT_EQ(load->samples, 60);
  EXPECT_NEAR(load->pct, 50.0, 1e-9);
  EXPECT_EQ(load->idle_samples, 60);
  EXPECT_NEAR(load->idle_pct, 100.0 * 60 / 72, 1e-9);
  // The forward line: 36 samples inside conv and 12 on the line itself, one row named by conv (most of them).
  const PythonLine* conv = line(r, "train.py:40", "conv.py:549 _conv_forward");
  ASSERT_TRUE(conv);
  EXPECT_EQ(conv->function, "forward");
  EXPECT_EQ(conv->samples, 48);
  EXPECT_EQ(conv->idle_samples, 0);  // the kernel ran
  EXPECT_EQ(conv->stack,
            (std::vector<std::string>{"train.py:80 main", "train.py:40 forward", "conv.py:549 _conv_forward"}));
  EXPECT_EQ(conv->stack_samples, 36);
  EXPECT_FALSE(line(r, "train.py:40"));
  ASSERT_TRUE(line(r, "train.py:60"));
  EXPECT_EQ(line(r, "train.py:60")->idle_samples, 12);
}

TEST(PythonLines, ARangeCountsOnlyItsSamples) {
  Program p;
  const PythonLines r = python_lines(p.s, 0, 4 * kMs);  // the first kernel only
  EXPECT_EQ(r.samples, 4);
  EXPECT_EQ(r.idle_samples, 0);
  ASSERT_EQ(r.lines.size(), 1u);  // train.py:40: 3 samples inside conv, 1 on the line itself
  EXPECT_EQ(r.lines[0].innermost, "conv.py:549 _conv_forward");
  EXPECT_NEAR(r.lines[0].pct, 100.0, 1e-9);
  EXPECT_EQ(r.lines[0].idle_pct, 0);
  const PythonLines gap = python_lines(p.s, 4 * kMs, 10 * kMs);
  EXPECT_EQ(gap.samples, 6);
  EXPECT_EQ(gap.idle_samples, 6);
  ASSERT_EQ(gap.lines.size(), 2u);
  EXPECT_EQ(gap.lines[0].where, "train.py:52");
  EXPECT_EQ(gap.lines[0].samples, 5);
}

TEST(PythonLines, TheAnalysedStepsByDefaultAgreeWithTheReport) {
  Program p;
  const PythonLines r = python_lines(p.s, 0, 0, 1);
  EXPECT_TRUE(r.analysed_steps);
  EXPECT_EQ(r.steps, 11);
  EXPECT_EQ(r.from_ns, 10 * kMs);
  EXPECT_EQ(r.to_ns, 120 * kMs);
  Options o;
  o.warmup_steps = 1;
  const Report rep = analyze(p.s, o);
  EXPECT_EQ(r.samples, rep.python_samples);
  const auto idle = rep.frames_by_cause.find("idle");
  ASSERT_NE(idle, rep.frames_by_cause.end());
  ASSERT_FALSE(idle->second.empty());
  for (const FrameShare& f : idle->second) {
    const PythonLine* l = line(r, f.where, f.innermost);
    ASSERT_TRUE(l) << f.where;
    EXPECT_EQ(l->function, f.function);
    EXPECT_EQ(l->idle_samples, f.samples) << f.where;
    EXPECT_NEAR(l->idle_pct, f.pct, 1e-9) << f.where;
  }
}

// A Python loop on one line that calls a different library function each time (per-sample tensor
// work): 6 of every step's 10 samples are on prep.py:44, each inside another of 6 torch functions, and
// 3 on train.py:70 inside one. Shared out by (line, innermost frame), prep.py:44 would come after
// train.py:70 with 1/10 of the idle time per piece; counted by line it leads with 60 %.
TEST(PythonLines, ALineThatCallsManyLibraryFunctionsKeepsItsWholeShare) {
  EventStore s;
  s.set_meta("session.source", "injected (trainscope-run -- PROGRAM; profiling/inject)");
  const StringId prog = s.strings.intern("/home/u/prep.py"), train = s.strings.intern("/home/u/train.py");
  const StringId lib = s.strings.intern("/usr/lib/python3/dist-packages/torch/functional.py");
  auto frame = [&](std::uint32_t id, const char* fn, StringId f, int l) {
    s.append(s.py_frames, PyFrameRecord{id, s.strings.intern(fn), f, l});
  };
  frame(1, "main", train, 80), frame(2, "build_masks", prog, 44), frame(3, "log", train, 70);
  s.append(s.py_stacks, PyStackRecord{1, 0, 1});
  s.append(s.py_stacks, PyStackRecord{2, 1, 2});  // main > build_masks
  s.append(s.py_stacks, PyStackRecord{3, 1, 3});  // main > log
  for (std::uint32_t i = 0; i < 7; ++i) {         // stacks 10..15: build_masks > torch fn i; 16: log > torch fn
    frame(10 + i, ("op" + std::to_string(i)).c_str(), lib, 100 + static_cast<int>(i));
    s.append(s.py_stacks, PyStackRecord{10 + i, i < 6 ? 2u : 3u, 10 + i});
  }
  for (int i = 0; i < 10; ++i) {
    const std::int64_t t = i * 10 * kMs;
    add_step(s, i, kMs);
    for (int m = 1; m < 10; ++m)  // 9 idle samples a step: 6 on prep.py:44 (one per torch fn), 3 on train.py:70
      s.append(s.py_samples, PySampleRecord{t + m * kMs + kMs / 2, kTid, m <= 6 ? 10u + static_cast<std::uint32_t>(m - 1) : 16u});
  }
  const PythonLines r = python_lines(s, 0, 0, 0);
  ASSERT_EQ(r.lines.size(), 2u);
  EXPECT_EQ(r.lines[0].where, "prep.py:44");
  EXPECT_EQ(r.lines[0].function, "build_masks");
  EXPECT_EQ(r.lines[0].samples, 60);
  EXPECT_EQ(r.lines[0].innermost, "functional.py:100 op0");  // six tied: the first by name
  const Report rep = analyze(s, Options{});
  for (const char* cause : {"idle", "host"}) {
    const auto it = rep.frames_by_cause.find(cause);
    ASSERT_NE(it, rep.frames_by_cause.end()) << cause;
    ASSERT_EQ(it->second.size(), 2u) << cause;
    EXPECT_EQ(it->second[0].where, "prep.py:44") << cause;
    EXPECT_NEAR(it->second[0].pct, 100.0 * 6 / 9, 1e-9) << cause;
    EXPECT_EQ(it->second[1].where, "train.py:70") << cause;
  }
}

TEST(PythonLines, WithoutSamplesOrStepsTheRangeSaysSo) {
  EventStore empty;
  const PythonLines r = python_lines(empty, 0, 0);
  EXPECT_EQ(r.recorded_samples, 0);
  EXPECT_TRUE(r.lines.empty());
  EXPECT_FALSE(r.analysed_steps);
  EXPECT_FALSE(r.gpu_recorded);
  // Samples but no steps: their own span, every thread.
  EventStore s;
  s.append(s.py_frames, PyFrameRecord{1, s.strings.intern("main"), s.strings.intern("/x/a.py"), 3});
  s.append(s.py_stacks, PyStackRecord{1, 0, 1});
  s.append(s.py_samples, PySampleRecord{100, 1, 1});
  s.append(s.py_samples, PySampleRecord{300, 2, 1});
  const PythonLines q = python_lines(s, 0, 0);
  EXPECT_EQ(q.from_ns, 100);
  EXPECT_EQ(q.to_ns, 301);
  EXPECT_EQ(q.samples, 2);
  EXPECT_EQ(q.idle_samples, 2);
  ASSERT_EQ(q.lines.size(), 1u);
  EXPECT_EQ(q.lines[0].where, "a.py:3");
}

TEST(PythonLines, StackNamesFindTheProgramsOwnLine) {
  EXPECT_TRUE(is_library_file(""));
  EXPECT_TRUE(is_library_file("<frozen importlib._bootstrap>"));
  EXPECT_TRUE(is_library_file("/venv/lib/python3.12/site-packages/torch/nn/modules/module.py"));
  EXPECT_TRUE(is_library_file("/usr/lib/python3.11/threading.py"));
  EXPECT_FALSE(is_library_file("/home/u/train.py"));
  EXPECT_EQ(base_name("/home/u/train.py"), "train.py");
  EXPECT_EQ(base_name("train.py"), "train.py");
  Program p;
  p.s.append(p.s.py_stacks, PyStackRecord{6, 0, 3});  // library frames only
  StackNames names(p.s);
  EXPECT_EQ(names.of(3).where, "train.py:40");
  EXPECT_EQ(names.of(3).innermost, "conv.py:549 _conv_forward");
  EXPECT_EQ(names.of(4).innermost, "");
  EXPECT_EQ(names.of(999).where, "?");
  EXPECT_TRUE(names.frames(999).empty());
  // Library frames only: the innermost one is where.
  EXPECT_EQ(names.of(6).where, "conv.py:549 _conv_forward");
  EXPECT_EQ(names.of(6).innermost, "");
}

}  // namespace
}  // namespace ts::prof::analysis
