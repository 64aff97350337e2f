// The record-to-session path of the injection library without a GPU: hand-made CUPTI records
// (kernels, a pageable D2H copy and a stream sync per step, as loss.item() makes) and NVTX events go
// through the Recorder into a session file, which read_session opens and the analysis judges.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <chrono>
#include <filesystem>
#include <thread>

#include "engine/host_trace.h"
#include "profiling/analysis/analysis.h"
#include "profiling/inject/recorder.h"
#include "profiling/proc_stat.h"
#include "profiling/session/session_file.h"

using namespace ts::prof;
using namespace ts::prof::inject;
namespace fs = std::filesystem;

namespace {
constexpr std::int64_t kMs = 1'000'000, kStart = 5'000 * kMs;  // steady ns of session time 0

/// A fake CUPTI buffer: an array of record pointers; next() walks it as cuptiActivityGetNextRecord.
CUptiResult next(std::uint8_t* buffer, std::size_t valid, CUpti_Activity** r) {
  auto** recs = reinterpret_cast<CUpti_Activity**>(buffer);
  const std::size_t n = valid / sizeof(CUpti_Activity*);
  std::size_t i = 0;
  if (*r) {
    while (i < n && recs[i] != *r) ++i;
    ++i;
  }
  if (i >= n) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *r = recs[i];
  return CUPTI_SUCCESS;
}

struct Records {
  std::vector<CUpti_ActivityKernel10> kernels;
  std::vector<CUpti_ActivityMemcpy6> copies;
  std::vector<CUpti_ActivitySynchronization2> syncs;
  std::vector<CUpti_Activity*> all;
};

/// One step at session ms `t`: two kernels [t+1, t+4), a pageable 4-byte D2H copy, a stream sync
/// that the host waits in [t+1.5, t+4.2). CUPTI times: kStart + session time (offset 0).
void step(Records& R, std::int64_t t, std::uint32_t corr) {
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.name = "_Z11conv_kernelPf";
  k.gridX = 264, k.gridY = k.gridZ = 1, k.blockX = 256, k.blockY = k.blockZ = 1, k.registersPerThread = 32;
  k.streamId = 7, k.correlationId = corr;
  k.start = kStart + (t + 1) * kMs, k.end = kStart + (t + 2) * kMs;
  R.kernels.push_back(k);
  k.correlationId = corr + 1, k.start = k.end, k.end = kStart + (t + 4) * kMs;
  R.kernels.push_back(k);
  CUpti_ActivityMemcpy6 m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE, m.bytes = 4, m.streamId = 7, m.correlationId = corr + 2;
  m.start = kStart + (t + 4) * kMs, m.end = m.start + kMs / 10;
  R.copies.push_back(m);
  CUpti_ActivitySynchronization2 s{};
  s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, s.streamId = 7, s.correlationId = corr + 3;
  s.start = kStart + t * kMs + 3 * kMs / 2, s.end = kStart + (t + 4) * kMs + kMs / 5;
  R.syncs.push_back(s);
}

fs::path temp_dir(const char* name) {
  const fs::path d = fs::temp_directory_path() / ("ts-inject-" + std::to_string(getpid()) + "-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void nvtx(Recorder& rec, RangeEvent::Type t, std::int64_t ms, const char* name = "") {
  rec.ranges().append(RangeEvent{t, 4242, kStart + ms * kMs, 0, name});
}
}  // namespace

TEST(InjectRecorder, HandMadeRecordsBecomeAReadableSession) {
  const fs::path dir = temp_dir("recorder");
  InjectConfig c;
  c.session = (dir / "run-rank1.tsession").string();
  c.kinds = {"CONCURRENT_KERNEL", "MEMCPY", "SYNCHRONIZATION"};  // syncs from CUPTI's records, which name no thread
  c.rank = 1, c.world_size = 2, c.rank_source = "RANK";
  c.run_id = "job-42", c.root_pid = 4242;
  constexpr int kSteps = 14;
  Records R;
  R.kernels.reserve(2 * kSteps), R.copies.reserve(kSteps), R.syncs.reserve(kSteps);
  {
    Recorder rec(c, kStart);
    rec.set_gpu(0, nullptr);
    rec.set_release([](std::uint8_t*, std::size_t) {});
    for (int i = 0; i < kSteps; ++i) {
      const std::int64_t t = 10 * i;
      step(R, t, 10 + 4 * static_cast<std::uint32_t>(i));
      nvtx(rec, RangeEvent::Type::push, t, "data"), nvtx(rec, RangeEvent::Type::pop, t + 1);
      nvtx(rec, RangeEvent::Type::push, t + 1, "step"), nvtx(rec, RangeEvent::Type::pop, t + 9);
      if (i == kSteps / 2) rec.flush(kStart + t * kMs);  // a batch mid-run, as the writer thread's
    }
    for (auto& k : R.kernels) R.all.push_back(reinterpret_cast<CUpti_Activity*>(&k));
    for (auto& m : R.copies) R.all.push_back(reinterpret_cast<CUpti_Activity*>(&m));
    for (auto& s : R.syncs) R.all.push_back(reinterpret_cast<CUpti_Activity*>(&s));
    rec.buffer_completed(reinterpret_cast<std::uint8_t*>(R.all.data()), R.all.size() * sizeof(CUpti_Activity*), &next);
    rec.finish("closed: test");
    EXPECT_EQ(rec.error(), "");
  }
  EventStore s;
  read_session(c.session, s);
  EXPECT_EQ(s.kernels.size(), 2u * kSteps);
  EXPECT_EQ(s.memcpys.size(), 1u * kSteps);
  ASSERT_EQ(s.steps.size(), 1u * kSteps);
  EXPECT_EQ(s.steps[0].start, 0);  // the data fetch opens the step
  EXPECT_EQ(s.kernels[0].start, 1 * kMs);
  EXPECT_EQ(s.strings.get(s.kernels[0].name), "conv_kernel(float*)");
  int sync_ranges = 0;
  for (std::size_t i = 0; i < s.host_ranges.size(); ++i)
    if (s.host_ranges[i].kind == static_cast<std::uint8_t>(ts::trace::RangeKind::sync)) {
      ++sync_ranges;
      EXPECT_EQ(s.host_ranges[i].thread, 4242u);  // the thread that runs the steps
    }
  EXPECT_EQ(sync_ranges, kSteps);
  const auto meta = s.meta();
  EXPECT_EQ(meta.at("steps.rule"), "ranges matching 'step'");
  EXPECT_EQ(meta.at("inject.mode"), "lean");
  EXPECT_EQ(meta.at("inject.status"), "closed: test");
  EXPECT_EQ(meta.at("distributed.rank"), "1");
  EXPECT_EQ(meta.at("distributed.world_size"), "2");
  EXPECT_EQ(meta.at("distributed.run_id"), "job-42");  // what profiling/job groups ranks by
  EXPECT_EQ(meta.at("inject.root_pid"), "4242");
  EXPECT_FALSE(meta.at("inject.host").empty());
  EXPECT_NE(meta.at("inject.unavailable").find("the launch calls"), std::string::npos);
  analysis::Options o;
  o.warmup_steps = 1;  // as --analyze
  const analysis::Report r = analysis::analyze(s, o);
  EXPECT_TRUE(r.gpu_present);
  EXPECT_EQ(r.rank, 1);
  EXPECT_GT(r.sync_ns, 0);
  EXPECT_GT(r.data_wait_ns, 0);
  EXPECT_EQ(r.pageable_copies, kSteps - 1);  // the first step is warm-up
  EXPECT_EQ(r.step_rule, "ranges matching 'step'");
  fs::remove_all(dir);
}

TEST(InjectRecorder, AKilledRecordingKeepsEveryFlushedBatch) {
  const fs::path dir = temp_dir("killed");
  InjectConfig c;
  c.session = (dir / "k.tsession").string();
  const pid_t p = fork();
  if (p == 0) {  // the recorded program: one flushed batch, then killed before it closes
    Recorder* rec = new Recorder(c, kStart);
    for (int i = 0; i < 3; ++i)
      nvtx(*rec, RangeEvent::Type::push, 10 * i, "step"), nvtx(*rec, RangeEvent::Type::pop, 10 * i + 5);
    rec->flush(kStart + 100 * kMs);
    nvtx(*rec, RangeEvent::Type::push, 40, "step"), nvtx(*rec, RangeEvent::Type::pop, 45);  // lost: not flushed
    _exit(0);  // no destructor, no close: as a kill -9
  }
  int st = 0;
  waitpid(p, &st, 0);
  EventStore s;
  read_session(c.session, s);
  EXPECT_EQ(s.steps.size(), 3u);
  EXPECT_NE(s.meta().at("inject.status").find("recording"), std::string::npos);
  fs::remove_all(dir);
}

TEST(InjectRecorder, SamplersOffWhenTheirPeriodIsZero) {
  const fs::path dir = temp_dir("nosamplers");
  for (const int period : {0, 20}) {
    InjectConfig c;
    c.session = (dir / ("s" + std::to_string(period) + ".tsession")).string();
    c.sample_ms = period, c.flush_ms = 50;
    {
      Recorder rec(c, std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch()).count());
      rec.start_thread(c.flush_ms);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      rec.finish("closed: test");
    }
    EventStore s;
    read_session(c.session, s);
    const auto m = s.meta();
    EXPECT_EQ(m.at("inject.flush_ms"), "50");
    if (period == 0) {
      EXPECT_EQ(m.at("samplers"), "off (TRAINSCOPE_INJECT_SAMPLE_MS=0)");
      EXPECT_EQ(s.samples.size(), 0u);
    } else {
      EXPECT_EQ(m.count("samplers"), 0u);
      EXPECT_GT(s.samples.size(), 0u);  // this thread's CPU time, every 20 ms
    }
  }
  fs::remove_all(dir);
}

TEST(InjectRecorder, UnwritableSessionIsATypedError) {
  InjectConfig c;
  c.session = "/nonexistent-dir/x.tsession";
  EXPECT_THROW(Recorder(c, 0), SessionError);
}

TEST(InjectRecorder, GpuRecordsThatStopEarlyAreSaid) {
  const fs::path dir = temp_dir("gap");
  InjectConfig c;
  c.session = (dir / "g.tsession").string();
  Records R;
  R.kernels.reserve(2), R.copies.reserve(1), R.syncs.reserve(1);
  step(R, 0, 1);  // GPU records of the first step only, as when torch.profiler took CUPTI's buffers
  for (auto& k : R.kernels) R.all.push_back(reinterpret_cast<CUpti_Activity*>(&k));
  {
    Recorder rec(c, kStart);
    rec.set_gpu(0, nullptr);
    rec.set_release([](std::uint8_t*, std::size_t) {});
    rec.buffer_completed(reinterpret_cast<std::uint8_t*>(R.all.data()), R.all.size() * sizeof(CUpti_Activity*), &next);
    for (int i = 0; i < 400; ++i)  // steps for 4 s
      nvtx(rec, RangeEvent::Type::push, 10 * i, "step"), nvtx(rec, RangeEvent::Type::pop, 10 * i + 9);
    rec.finish("closed: test");
  }
  EventStore s;
  read_session(c.session, s);
  ASSERT_EQ(s.meta().count("inject.gpu_stopped"), 1u);
  EXPECT_NE(s.meta().at("inject.gpu_stopped").find("torch.profiler"), std::string::npos);
  fs::remove_all(dir);
}

TEST(InjectSampler, CpuPercentOfEveryThread) {
  EventStore s;
  ts::prof::inject::Sampler smp(s, SessionClock(0, 0));
  std::string comm;
  EXPECT_GE(ts::prof::thread_cpu_ns(static_cast<std::uint32_t>(getpid()), &comm), 0);
  EXPECT_FALSE(comm.empty());
  EXPECT_EQ(ts::prof::thread_cpu_ns(0xfffffff0u, nullptr), -1);
  smp.sample_once(1'000'000'000);
  volatile double x = 0;
  for (int i = 0; i < 20'000'000; ++i) x = x + i;  // some CPU time on this thread
  smp.sample_once(1'200'000'000);
  ASSERT_GE(s.series.size(), 1u);
  ASSERT_GE(s.samples.size(), 1u);
  EXPECT_EQ(s.strings.get(s.series[0].name).rfind("cpu.percent.", 0), 0u);
  EXPECT_EQ(s.samples[0].time, 1'200'000'000);
  EXPECT_EQ(s.meta().count("samplers.nvml"), 0u);  // no device known: NVML not even tried
}

TEST(InjectRecorder, WindowsLeaveTheFileWhenStepRangesAppear) {
  const fs::path dir = temp_dir("windows");
  InjectConfig c;
  c.session = (dir / "w.tsession").string();
  {
    Recorder rec(c, kStart);
    rec.flush(kStart + 3500 * kMs);  // 3.5 s of imports and setup: three windows written
    EventStore early;
    read_session(c.session, early);
    EXPECT_EQ(early.steps.size(), 3u);
    EXPECT_EQ(early.meta().at("steps.rule"), "one-second windows (a live run without step ranges)");
    for (int i = 0; i < 2; ++i)
      nvtx(rec, RangeEvent::Type::push, 4000 + 10 * i, "step"), nvtx(rec, RangeEvent::Type::pop, 4005 + 10 * i);
    rec.finish("closed: test");
  }
  EventStore s;
  read_session(c.session, s);
  ASSERT_EQ(s.steps.size(), 2u);  // the windows are gone, the two range steps stay
  EXPECT_EQ(s.steps[0].global_step, 1);
  EXPECT_EQ(s.steps[0].start, 4000 * kMs);
  EXPECT_EQ(s.meta().at("steps.rule"), "ranges matching 'step'");
  EXPECT_NE(s.meta().at("steps.note").find("dropped"), std::string::npos);
  fs::remove_all(dir);
}
