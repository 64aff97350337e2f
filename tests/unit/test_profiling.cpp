// Profiling core without a GPU: string interning, clock alignment, the schedule, synthetic CUPTI
// buffers, the session file's round trip, refusal of wrong files, and a kill -9 while writing.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "base/errors.h"
#include "engine/host_trace.h"
#include "profiling/clock.h"
#include "profiling/event_source.h"
#include "profiling/profiler.h"
#include "profiling/session/session_file.h"
#include <sqlite3.h>
#if defined(TRAINSCOPE_HAVE_CUDA)
#include "profiling/cupti/cupti_parse.h"
#endif

namespace ts::prof {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("ts_prof_" + std::to_string(getpid()) + "_" + name)).string();
}

TEST(StringTable, InternsOncePerString) {
  StringTable t;
  EXPECT_EQ(t.intern(""), kNoString);
  const StringId a = t.intern("conv1"), b = t.intern("conv2");
  EXPECT_NE(a, b);
  EXPECT_EQ(t.intern(std::string("conv") + "1"), a);
  EXPECT_EQ(t.get(a), "conv1");
  EXPECT_EQ(t.get(12345), "");
  EXPECT_EQ(t.size(), 3u);
}

TEST(AppendLog, ReaderSeesAConsistentPrefixWhileTheWriterAppends) {
  AppendLog<std::int64_t> log;
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (std::int64_t i = 0; i < 200000; ++i) log.push(i);
    done = true;
  });
  while (!done) {
    const std::size_t n = log.size();
    for (std::size_t i = n > 100 ? n - 100 : 0; i < n; ++i) ASSERT_EQ(log[i], static_cast<std::int64_t>(i));
  }
  writer.join();
  EXPECT_EQ(log.size(), 200000u);
}

TEST(Clock, MeasuresOffsetWithTheTightestBracket) {
  std::int64_t host = 1000;
  // The other clock runs 5000 ns ahead; the host advances 10 ns per read, 2 ns on one tight read.
  int reads = 0;
  auto h = [&] { host += (++reads == 7) ? 2 : 10; return host; };
  auto o = [&] { return host + 5000; };
  const ClockOffset off = measure_offset(h, o, 8);
  EXPECT_NEAR(static_cast<double>(off.offset_ns), 5000.0, 10.0);
  EXPECT_LE(off.error_ns, 5);
  SessionClock c(1000, off.offset_ns);
  EXPECT_EQ(c.from_host(1500), 500);
  EXPECT_EQ(c.from_gpu(static_cast<std::uint64_t>(1500 + off.offset_ns)), 500);
}

TEST(Schedule, ParsesAndFollowsPyTorchSemantics) {
  const ProfileSchedule s = parse_profile_schedule("wait=1,warmup=1,active=2,repeat=2");
  const int expect[] = {0, 1, 2, 2, 0, 1, 2, 2, 0, 0};
  for (int i = 0; i < 10; ++i) EXPECT_EQ(s.state(i + 1), expect[i]) << "step " << i + 1;
  EXPECT_THROW(parse_profile_schedule("wait=x"), InputError);
  EXPECT_THROW(parse_profile_schedule("active=0"), InputError);
  EXPECT_THROW(parse_profile_schedule("sleep=3"), InputError);
}

TEST(Schedule, CuptiOnFromTheStepBeforeAWindowAndTheAnalysisFromItsSecondStep) {
  // wait=3,active=3: steps 4-6 and 10-12 active. CUPTI records from step 3 (a lead-in whose first
  // launches pay the instrumentation) through step 6; the analysis reads 5-6 and 11-12.
  const ProfileSchedule s = parse_profile_schedule("wait=3,warmup=0,active=3,repeat=2");
  std::string on, read;
  for (int step = 1; step <= 14; ++step) {
    on += cupti_on_for_next(s, step - 1) ? '1' : '0';
    read += analysed_step(s, step) ? '1' : '0';
  }
  EXPECT_EQ(on, "00111100111100");
  EXPECT_EQ(read, "00001100001100");
  const ProfileSchedule one = parse_profile_schedule("wait=2,active=1");  // one-step windows: each read
  EXPECT_TRUE(analysed_step(one, 3));
  EXPECT_FALSE(analysed_step(one, 2));
  EXPECT_TRUE(cupti_on_for_next(ProfileSchedule{}, 5));  // no schedule: always on
}

/// A store with a few rows of every table.
void fill_store(EventStore& s, int n) {
  for (int i = 0; i < n; ++i) {
    KernelRecord k;
    k.start = 1000 * i, k.end = k.start + 500, k.stream = 7, k.correlation = static_cast<std::uint32_t>(i + 1);
    k.name = s.strings.intern(i % 2 ? "void gemm<128>(float*)" : "relu_kernel");
    KernelConfig c;
    c.grid[0] = 64, c.block[0] = 256, c.registers = 32 + i % 2, c.static_smem = 1024, c.dynamic_smem = 16;
    k.config = s.intern_config(c);
    k.graph_id = i % 3 == 0 ? 5 : 0, k.graph_node = i % 3 == 0 ? 0x123456789ull : 0;
    s.append(s.kernels, k);
    s.append(s.memcpys, MemcpyRecord{1000 * i, 1000 * i + 10, 0, 0, 1, 8, static_cast<std::uint32_t>(i), 393216, 1, 3, 2, 0, 0});
    s.append(s.memsets, MemsetRecord{1000 * i, 1000 * i + 5, 0, 0, 1, 7, 9, 16, 0, 2, 0, 0});
    s.append(s.runtime, RuntimeRecord{1000 * i - 100, 1000 * i - 90, 42, static_cast<std::uint32_t>(i + 1),
                                      s.strings.intern("cudaLaunchKernel"), 211, 0});
    s.append(s.syncs, SyncRecord{1000 * i, 1000 * i + 300, -1, 0, 1, 7, 3, 3, 0});
    s.append(s.memory, MemoryRecord{1000 * i, 0, 0, 1, 7, 4, 1, 2, 0xdead0000ull + static_cast<unsigned>(i), 4096});
    s.append(s.overheads, OverheadRecord{1000 * i, 1000 * i + 20, 0, 1, 1, 42});
    s.append(s.host_ranges, HostRangeRecord{1000 * i, 1000 * i + 800, 0, 0, 42, 3, s.strings.intern("forward"),
                                            s.strings.intern("layer 0 (Conv2d conv1)"), i + 1});
    s.append(s.steps, StepRecord{i + 1, 1, i + 1, 1000 * i, 1000 * i + 900, 128, 50});
    s.append(s.losses, LossRecord{i + 1, 2.5f - 0.01f * static_cast<float>(i)});
    s.append(s.samples, SampleRecord{1000 * i, 0, 1.5 * i});
  }
  s.append(s.threads, ThreadRecord{42, s.strings.intern("trainer")});
  if (s.series.size() == 0) s.append(s.series, SeriesRecord{0, s.strings.intern("gpu.power"), s.strings.intern("W")});
  s.append(s.clock, ClockRecord{0, 123456, 0});
  s.dropped_cupti = 3;
  s.set_meta("run.config", "{\"batch_size\":128}");
}

TEST(SessionFile, RoundTripsEveryTable) {
  const std::string path = temp_path("roundtrip.tsession");
  EventStore a;
  fill_store(a, 50);
  {
    SessionWriter w(path, a);
    ASSERT_TRUE(w.write_batch());
    fill_store(a, 10);  // a second batch appends
    w.close();
    EXPECT_EQ(w.events_written(), 60 * 7);
  }
  EventStore b;
  read_session(path, b);
  ASSERT_EQ(b.kernels.size(), 60u);
  for (std::size_t i = 0; i < 60; ++i) {
    const KernelRecord &x = a.kernels[i], &y = b.kernels[i];
    EXPECT_EQ(x.start, y.start);
    EXPECT_EQ(x.end, y.end);
    EXPECT_EQ(a.strings.get(x.name), b.strings.get(y.name));
    EXPECT_EQ(a.config(x), b.config(y));
    EXPECT_EQ(b.config(y).registers, 32 + static_cast<int>(i % 2));
    EXPECT_EQ(x.graph_node, y.graph_node);
    EXPECT_EQ(x.correlation, y.correlation);
  }
  EXPECT_EQ(b.memcpys.size(), 60u);
  EXPECT_EQ(b.memcpys[3].bytes, 393216);
  EXPECT_EQ(b.memsets.size(), 60u);
  EXPECT_EQ(b.runtime.size(), 60u);
  EXPECT_EQ(b.strings.get(b.runtime[0].name), "cudaLaunchKernel");
  EXPECT_EQ(b.syncs.size(), 60u);
  EXPECT_EQ(b.memory.size(), 60u);
  EXPECT_EQ(b.memory[5].address, a.memory[5].address);
  EXPECT_EQ(b.overheads.size(), 60u);
  ASSERT_EQ(b.host_ranges.size(), 60u);
  EXPECT_EQ(b.strings.get(b.host_ranges[1].layer), "layer 0 (Conv2d conv1)");
  EXPECT_EQ(b.steps.size(), 50u);  // the second batch re-used global steps 1..10 (rows replaced)
  EXPECT_GE(b.losses.size(), 50u);
  EXPECT_EQ(b.samples.size(), 60u);
  EXPECT_EQ(b.strings.get(b.series[0].name), "gpu.power");
  EXPECT_EQ(b.threads.size(), 2u);
  EXPECT_EQ(b.clock.size(), 2u);
  EXPECT_EQ(b.dropped().cupti, 3);
  EXPECT_EQ(b.meta().at("run.config"), "{\"batch_size\":128}");
  std::filesystem::remove(path);
}

TEST(SessionFile, TopKernelsQueryFromTheDocsRuns) {
  const std::string path = temp_path("query.tsession");
  EventStore a;
  fill_store(a, 20);
  SessionWriter(path, a).close();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "SELECT name, COUNT(*) AS calls, SUM(dur) AS total_ns FROM kernel_view GROUP BY name "
                               "ORDER BY total_ns DESC LIMIT 10",
                               -1, &st, nullptr),
            SQLITE_OK);
  int rows = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    ++rows;
    EXPECT_EQ(sqlite3_column_int64(st, 1), 10);
    EXPECT_EQ(sqlite3_column_int64(st, 2), 5000);
  }
  EXPECT_EQ(rows, 2);
  sqlite3_finalize(st);
  sqlite3_close(db);
  std::filesystem::remove(path);
}

TEST(SessionFile, RefusesWrongFilesWithTypedErrors) {
  const std::string garbage = temp_path("garbage.tsession");
  std::ofstream(garbage) << std::string(8192, 'x');
  EventStore s;
  try {
    read_session(garbage, s);
    FAIL() << "garbage accepted";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind, SessionError::Kind::not_a_session) << e.what();
  }
  // An empty file says so (it read "SQLite application_id 0").
  const std::string empty = temp_path("empty.tsession");
  std::ofstream(empty).close();
  try {
    read_session(empty, s);
    FAIL() << "empty file accepted";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind, SessionError::Kind::not_a_session);
    EXPECT_NE(std::string(e.what()).find("is empty (0 bytes)"), std::string::npos) << e.what();
  }
  // Another application's SQLite database.
  const std::string other = temp_path("other.db");
  std::filesystem::remove(other);
  sqlite3* db = nullptr;
  sqlite3_open(other.c_str(), &db);
  sqlite3_exec(db, "CREATE TABLE t(x)", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  EXPECT_THROW(read_session(other, s), SessionError);
  // A newer format.
  const std::string newer = temp_path("newer.tsession");
  EventStore a;
  fill_store(a, 5);
  SessionWriter(newer, a).close();
  sqlite3_open(newer.c_str(), &db);
  sqlite3_exec(db, "UPDATE schema_version SET version = 99", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  try {
    read_session(newer, s);
    FAIL() << "newer version accepted";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind, SessionError::Kind::newer_version) << e.what();
    EXPECT_NE(std::string(e.what()).find("newer TrainScope"), std::string::npos);
  }
  // Truncated: half of a real session.
  const std::string cut = temp_path("cut.tsession");
  EventStore big;
  fill_store(big, 3000);
  SessionWriter(cut, big).close();
  std::filesystem::resize_file(cut, std::filesystem::file_size(cut) / 2);
  EXPECT_THROW(read_session(cut, s), SessionError);
  EXPECT_THROW(read_session(temp_path("missing.tsession"), s), SessionError);
  for (const auto& p : {garbage, other, newer, cut}) std::filesystem::remove(p);
}

TEST(SessionFile, ReadsWithProgressAndCanBeCancelled) {
  const std::string path = temp_path("progress.tsession");
  EventStore a;
  fill_store(a, 3000);
  SessionWriter(path, a).close();
  // Progress: increasing, ends at the total, every row counted.
  std::int64_t calls = 0, last = 0, total = 0;
  EventStore b;
  read_session(path, b, ReadProgress{[&](std::int64_t done, std::int64_t all) {
                 EXPECT_GE(done, last);
                 EXPECT_LE(done, all);
                 ++calls, last = done, total = all;
                 return true;
               }});
  EXPECT_GT(calls, 1);
  EXPECT_EQ(last, total);
  EXPECT_EQ(b.counts().events(), a.counts().events());
  EXPECT_FALSE(b.meta().empty());  // metadata comes first
  // Cancel after the first report: a typed error, and the rows read so far stay.
  EventStore c;
  try {
    read_session(path, c, ReadProgress{[](std::int64_t, std::int64_t) { return false; }});
    FAIL() << "not cancelled";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind, SessionError::Kind::cancelled) << e.what();
  }
  EXPECT_LT(c.counts().events(), a.counts().events());
  std::filesystem::remove(path);
}

TEST(SessionFile, KillDashNineLosesAtMostTheLastSecond) {
  const std::string path = temp_path("killed.tsession");
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // A step every ~2 ms (session clock: ns since the child started), one kernel per 0.1 ms, a batch every
    // 250 ms (the profiler's period). Reports each completed step: {global step, end, events committed}.
    close(pipefd[0]);
    const auto t0 = std::chrono::steady_clock::now();
    auto session_ns = [&] {
      return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count();
    };
    EventStore s;
    SessionWriter w(path, s);
    auto last = std::chrono::steady_clock::now();
    std::int64_t step = 0, step_start = 0;
    for (std::int64_t i = 0;; ++i) {
      KernelRecord k;
      k.start = i, k.end = i + 1, k.name = s.strings.intern("k");
      s.append(s.kernels, k);
      std::this_thread::sleep_for(std::chrono::microseconds(100));
      if (i % 20 == 19) {
        const std::int64_t end = session_ns();
        ++step;
        s.append(s.steps, StepRecord{step, 1, step, step_start, end, 32, 0});
        step_start = end;
        const std::int64_t report[3] = {step, end, w.events_written()};
        if (write(pipefd[1], report, sizeof(report)) != sizeof(report)) _exit(1);
      }
      if (std::chrono::steady_clock::now() - last >= std::chrono::milliseconds(250)) {
        w.write_batch();
        last = std::chrono::steady_clock::now();
      }
    }
  }
  close(pipefd[1]);
  // Read step reports for ~1.2 s (about 4 batches), then kill at once: the last step read is the last the
  // child reported before the kill.
  std::int64_t report[3] = {}, last_step = 0, last_end = 0, committed = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1200);
  while (std::chrono::steady_clock::now() < until && read(pipefd[0], report, sizeof(report)) == sizeof(report))
    last_step = report[0], last_end = report[1], committed = report[2];
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  close(pipefd[0]);
  EventStore s;
  read_session(path, s);
  EXPECT_GE(static_cast<std::int64_t>(s.kernels.size()), committed);  // every reported batch survived
  EXPECT_GT(committed, 0);
  ASSERT_GT(last_step, 0);
  ASSERT_GT(s.steps.size(), 0u) << "no step row survived";
  // The documented bound (docs/session-format.md): a kill -9 loses at most the batch in progress, so the
  // last step row in the file ends within 1 s (session clock) of the last step the child reported.
  const StepRecord& kept = s.steps[s.steps.size() - 1];
  EXPECT_LE(last_end - kept.end, 1'000'000'000) << "last reported step " << last_step << " ends at " << last_end
                                                << " ns, the file's last step " << kept.global_step << " at "
                                                << kept.end << " ns";
  for (std::size_t i = 0; i < s.steps.size(); ++i) EXPECT_EQ(s.steps[i].global_step, static_cast<std::int64_t>(i + 1));
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}

TEST(Profiler, RecordsHostRangesAndStepsWithoutAGpu) {
  const std::string path = temp_path("host.tsession");
  ProfilerOptions o;
  o.session_path = path;
  o.cuda_device = -1;
  Profiler p(o);
  trace::name_this_thread("trainer");
  for (int step = 1; step <= 5; ++step) {
    trace::set_current_step(step);
    const std::int64_t t0 = trace::now_ns();
    {
      trace::ScopedRange r(trace::RangeKind::forward, "forward", "layer 0 (Conv2d conv1)");
    }
    trace::step_done({1, step, step, t0, trace::now_ns(), 128, 0});
  }
  const float losses[] = {2.3f, 2.2f, 2.1f, 2.0f, 1.9f};
  trace::losses_read(1, losses, 5);
  const ProfilerSummary s = p.stop();
  EXPECT_EQ(s.counts.host_ranges, 5u);
  EXPECT_EQ(s.steps, 5);
  EXPECT_NE(s.gpu_status.find("CPU"), std::string::npos);
  auto src = open_session(path);
  const EventStore& r = src->store();
  ASSERT_EQ(r.host_ranges.size(), 5u);
  EXPECT_EQ(r.strings.get(r.host_ranges[2].layer), "layer 0 (Conv2d conv1)");
  EXPECT_EQ(r.host_ranges[2].step, 3);
  ASSERT_EQ(r.losses.size(), 5u);
  EXPECT_FLOAT_EQ(r.losses[4].loss, 1.9f);
  EXPECT_NE(r.meta().at("gpu_activity").find("CPU"), std::string::npos);
  std::filesystem::remove(path);
}

TEST(Profiler, PartsLeftOutForMeasuringComeFromTheEnvironment) {
  setenv("TRAINSCOPE_PROFILE_SKIP", "runtime,,samplers,host", 1);
  ProfileParts p = profile_parts_from_env();
  EXPECT_FALSE(p.cupti_kinds.runtime);
  EXPECT_FALSE(p.samplers);
  EXPECT_FALSE(p.host);
  EXPECT_TRUE(p.cupti_kinds.kernels && p.cupti_kinds.copies && p.cupti && p.writer);
  EXPECT_TRUE(p.cupti_kinds.graph_nodes);
  setenv("TRAINSCOPE_PROFILE_SKIP", "graph_nodes", 1);  // the CUDA-graph node callbacks alone
  p = profile_parts_from_env();
  EXPECT_FALSE(p.cupti_kinds.graph_nodes);
  EXPECT_TRUE(p.cupti_kinds.kernels && p.cupti_kinds.runtime);
  setenv("TRAINSCOPE_PROFILE_SKIP", "runtime,kernal", 1);
  try {
    profile_parts_from_env();
    ADD_FAILURE() << "an unknown part was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'kernal'"), std::string::npos) << e.what();
  }
  // Host ranges left out: steps are still recorded, ranges are not.
  setenv("TRAINSCOPE_PROFILE_SKIP", "host", 1);
  const std::string path = temp_path("parts.tsession");
  {
    ProfilerOptions o;
    o.session_path = path;
    Profiler prof(o);
    const std::int64_t t0 = trace::now_ns();
    {
      trace::ScopedRange r(trace::RangeKind::forward, "forward", "layer 0");
    }
    trace::step_done({1, 1, 1, t0, trace::now_ns(), 128, 0});
    const ProfilerSummary s = prof.stop();
    EXPECT_EQ(s.counts.host_ranges, 0u);
    EXPECT_EQ(s.steps, 1);
  }
  unsetenv("TRAINSCOPE_PROFILE_SKIP");
  p = profile_parts_from_env();
  EXPECT_TRUE(p.cupti_kinds.runtime && p.samplers && p.host && p.writer && p.cupti);
  std::filesystem::remove(path);
}

#if defined(TRAINSCOPE_HAVE_CUDA)
// A synthetic activity buffer: records back to back, walked by a stand-in for
// cuptiActivityGetNextRecord that knows each kind's struct size.
struct Synthetic {
  std::vector<std::uint8_t> bytes;
  template <class T>
  void add(const T& r) {
    const std::size_t at = bytes.size();
    bytes.insert(bytes.end(), (sizeof(T) + 7) / 8 * 8, std::uint8_t{0});
    std::memcpy(bytes.data() + at, &r, sizeof(T));
  }
};

std::size_t record_size(CUpti_ActivityKind k) {
  switch (k) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_MEMCPY: return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_MEMSET: return sizeof(CUpti_ActivityMemset4);
    case CUPTI_ACTIVITY_KIND_RUNTIME: return sizeof(CUpti_ActivityAPI);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: return sizeof(CUpti_ActivitySynchronization2);
    case CUPTI_ACTIVITY_KIND_MEMORY2: return sizeof(CUpti_ActivityMemory4);
    default: return sizeof(CUpti_ActivityOverhead3);
  }
}

CUptiResult fake_next(std::uint8_t* buffer, std::size_t valid, CUpti_Activity** record) {
  std::uint8_t* at = *record ? reinterpret_cast<std::uint8_t*>(*record) + (record_size((*record)->kind) + 7) / 8 * 8 : buffer;
  if (at >= buffer + valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = reinterpret_cast<CUpti_Activity*>(at);
  return CUPTI_SUCCESS;
}

TEST(CuptiParse, ConvertsEveryKindOfASyntheticBuffer) {
  EventStore s;
  const std::int64_t offset = 1'000'000;  // CUPTI clock = host + 1 ms
  CuptiParser p(s, SessionClock(500, offset), 0, [](std::uint32_t cbid) { return "api" + std::to_string(cbid); });
  Synthetic b;
  CUpti_ActivityKernel10 k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 2'000'500, k.end = 2'001'500, k.streamId = 13, k.correlationId = 77;
  k.gridX = 8, k.gridY = 2, k.gridZ = 1, k.blockX = 256, k.blockY = 1, k.blockZ = 1;
  k.registersPerThread = 40, k.staticSharedMemory = 2048, k.dynamicSharedMemory = 64;
  k.name = "_Z8relu_fwdPfi";
  k.graphId = 3, k.graphNodeId = 99;
  b.add(k);
  CUpti_ActivityAPI api{};
  api.kind = CUPTI_ACTIVITY_KIND_RUNTIME, api.cbid = 211, api.start = 1'999'000, api.end = 2'000'000;
  api.correlationId = 77, api.threadId = 4242;
  b.add(api);
  CUpti_ActivityMemcpy6 m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY, m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, m.bytes = 393216;
  m.start = 3'000'500, m.end = 3'010'500;
  b.add(m);
  CUpti_ActivityMemset4 ms{};
  ms.kind = CUPTI_ACTIVITY_KIND_MEMSET, ms.bytes = 16, ms.start = 4'000'500, ms.end = 4'000'600;
  b.add(ms);
  CUpti_ActivitySynchronization2 sy{};
  sy.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, sy.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  sy.start = 5'000'500, sy.end = 5'100'500;
  b.add(sy);
  CUpti_ActivityMemory4 mem{};
  mem.kind = CUPTI_ACTIVITY_KIND_MEMORY2, mem.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
  mem.bytes = 1 << 20, mem.address = 0x7000, mem.timestamp = 6'000'500;
  b.add(mem);
  CUpti_ActivityOverhead3 ov{};
  ov.kind = CUPTI_ACTIVITY_KIND_OVERHEAD, ov.start = 7'000'500, ov.end = 7'000'900;
  b.add(ov);
  EXPECT_EQ(p.parse_buffer(b.bytes.data(), b.bytes.size(), fake_next), 7);
  ASSERT_EQ(s.kernels.size(), 1u);
  const KernelRecord& r = s.kernels[0];
  EXPECT_EQ(r.start, 2'000'500 - offset - 500);
  EXPECT_EQ(r.end - r.start, 1000);
  EXPECT_EQ(s.strings.get(r.name), "relu_fwd(float*, int)");
  const KernelConfig& rc = s.config(r);
  EXPECT_EQ(rc.grid[1], 2);
  EXPECT_EQ(rc.block[0], 256);
  EXPECT_EQ(rc.registers, 40);
  EXPECT_EQ(rc.static_smem, 2048);
  EXPECT_EQ(rc.dynamic_smem, 64);
  EXPECT_EQ(r.graph_id, 3u);
  EXPECT_EQ(r.graph_node, 99u);
  ASSERT_EQ(s.runtime.size(), 1u);
  EXPECT_EQ(s.runtime[0].correlation, r.correlation);  // launch -> kernel flow
  EXPECT_EQ(s.strings.get(s.runtime[0].name), "api211");
  EXPECT_EQ(s.runtime[0].thread, 4242u);
  ASSERT_EQ(s.memcpys.size(), 1u);
  EXPECT_EQ(s.memcpys[0].bytes, 393216);
  EXPECT_EQ(s.memsets.size(), 1u);
  EXPECT_EQ(s.syncs.size(), 1u);
  ASSERT_EQ(s.memory.size(), 1u);
  EXPECT_EQ(s.memory[0].bytes, 1 << 20);
  EXPECT_EQ(s.overheads.size(), 1u);
}

TEST(CuptiParse, ScheduleWindowDropsRecordsOutsideIt) {
  EventStore s;
  s.gpu_windows.open(100), s.gpu_windows.close(200);
  CuptiParser p(s, SessionClock(0, 0), 0, {});
  for (std::uint64_t t : {50u, 150u, 250u}) {
    CUpti_ActivityKernel10 k{};
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, k.start = t, k.end = t + 1, k.name = "k";
    p.record(reinterpret_cast<const CUpti_Activity*>(&k));
  }
  ASSERT_EQ(s.kernels.size(), 1u);
  EXPECT_EQ(s.kernels[0].start, 150);
}

TEST(CuptiParse, AWindowsRecordsParsedAfterTheNextWindowOpenedAreKept) {
  // Buffers are parsed ~100 ms late: a record of window [100, 200) arrives when [300, ...) is open.
  EventStore s;
  s.gpu_windows.set_none();
  EXPECT_FALSE(s.keep_gpu(50));
  s.gpu_windows.open(100), s.gpu_windows.close(200), s.gpu_windows.open(300);
  CuptiParser p(s, SessionClock(0, 0), 0, {});
  for (std::uint64_t t : {50u, 150u, 250u, 350u, 99999u}) {
    CUpti_ActivityKernel10 k{};
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, k.start = t, k.end = t + 1, k.name = "k";
    p.record(reinterpret_cast<const CUpti_Activity*>(&k));
  }
  ASSERT_EQ(s.kernels.size(), 3u);
  EXPECT_EQ(s.kernels[0].start, 150);
  EXPECT_EQ(s.kernels[1].start, 350);
  s.gpu_windows.close(400);
  EXPECT_TRUE(s.keep_gpu(399));
  EXPECT_FALSE(s.keep_gpu(400));
  EXPECT_FALSE(s.keep_gpu(250));
  EventStore all;  // no schedule: everything
  EXPECT_TRUE(all.keep_gpu(INT64_MIN) && all.keep_gpu(0));
  all.gpu_windows.open(INT64_MIN);  // a schedule whose first step is traced
  EXPECT_TRUE(all.keep_gpu(-5));
}

TEST(CuptiParse, ScheduleKeepsGpuWorkByItsLaunchNotItsStart) {
  // Window [100, 200) of host time. A call at 150 launches a kernel that runs at 400 (the host ran
  // ahead of the GPU): kept. A call at 250 launches a kernel running at 180: not kept.
  EventStore s;
  s.gpu_windows.open(100), s.gpu_windows.close(200);
  CuptiParser p(s, SessionClock(0, 0), 0, [](std::uint32_t) { return std::string("cudaLaunchKernel"); });
  auto call = [&](std::uint64_t t, std::uint32_t corr) {
    CUpti_ActivityAPI api{};
    api.kind = CUPTI_ACTIVITY_KIND_RUNTIME, api.start = t, api.end = t + 5, api.correlationId = corr;
    p.record(reinterpret_cast<const CUpti_Activity*>(&api));
  };
  auto kernel = [&](std::uint64_t t, std::uint32_t corr) {
    CUpti_ActivityKernel10 k{};
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, k.start = t, k.end = t + 1, k.name = "k", k.correlationId = corr;
    p.record(reinterpret_cast<const CUpti_Activity*>(&k));
  };
  call(150, 1), call(250, 2);
  kernel(400, 1), kernel(180, 2);
  ASSERT_EQ(s.kernels.size(), 1u);
  EXPECT_EQ(s.kernels[0].correlation, 1u);
  EXPECT_EQ(s.runtime.size(), 1u);
}
#endif

}  // namespace
}  // namespace ts::prof
