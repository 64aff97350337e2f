// The injection library's settings: session names by rank and process, modes, bad values.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <map>

#include "profiling/inject/cupti_api.h"
#include "profiling/inject/inject_config.h"
#include "profiling/inject/recorder.h"

using namespace ts::prof::inject;

namespace {
EnvFn env_of(const std::map<std::string, std::string>& m) {
  return [m](const char* n) -> const char* {
    auto it = m.find(n);
    return it == m.end() ? nullptr : it->second.c_str();
  };
}
}  // namespace

TEST(InjectConfig, SessionNamesByRankAndProcess) {
  EXPECT_EQ(session_path("/r/run.tsession", -1, 10, true), "/r/run.tsession");
  EXPECT_EQ(session_path("/r/run.tsession", 3, 10, true), "/r/run-rank3.tsession");
  EXPECT_EQ(session_path("/r/run.tsession", -1, 42, false), "/r/run-pid42.tsession");
  EXPECT_EQ(session_path("/r.d/run", 0, 1, true), "/r.d/run-rank0");  // a dot in the folder is no extension
  EXPECT_EQ(session_path("", -1, 7, true), "trainscope-7.tsession");
}

TEST(InjectConfig, RankFromTorchrunMpiOrSlurm) {
  auto c = read_config(env_of({{"TRAINSCOPE_SESSION", "/t/s.tsession"}, {"RANK", "2"}, {"WORLD_SIZE", "4"}}), 100);
  EXPECT_EQ(c.rank, 2);
  EXPECT_EQ(c.world_size, 4);
  EXPECT_EQ(c.rank_source, "RANK");
  EXPECT_EQ(c.session, "/t/s-rank2.tsession");
  c = read_config(env_of({{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "2"}}), 100);
  EXPECT_EQ(c.rank, 1);
  EXPECT_EQ(c.rank_source, "OMPI_COMM_WORLD_RANK");
  c = read_config(env_of({{"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "8"}}), 100);
  EXPECT_EQ(c.rank, 5);
  EXPECT_EQ(c.world_size, 8);
  c = read_config(env_of({{"RANK", "x1"}}), 100);
  EXPECT_EQ(c.rank, -1);
  ASSERT_EQ(c.warnings.size(), 1u);
}

TEST(InjectConfig, JobIdAndRecording) {
  auto c = read_config(env_of({{"TORCHELASTIC_RUN_ID", "a1b2"}, {"SLURM_JOB_ID", "77"}, {"TRAINSCOPE_ROOT_PID", "40"}}), 41);
  EXPECT_EQ(c.run_id, "a1b2");
  EXPECT_EQ(c.root_pid, 40);
  c = read_config(env_of({{"TORCHELASTIC_RUN_ID", "none"}, {"SLURM_JOB_ID", "77"}}), 41);
  EXPECT_EQ(c.run_id, "77") << "torchrun's default rdzv id names no job";
  c = read_config(env_of({{"TORCHELASTIC_RUN_ID", "none"}}), 41);
  EXPECT_EQ(c.run_id, "");
  EXPECT_EQ(c.root_pid, -1);
}

TEST(InjectConfig, OtherProcessesGetTheirOwnFile) {
  const auto root = read_config(env_of({{"TRAINSCOPE_SESSION", "a.tsession"}, {"TRAINSCOPE_ROOT_PID", "100"}}), 100);
  EXPECT_EQ(root.session, "a.tsession");
  const auto sub = read_config(env_of({{"TRAINSCOPE_SESSION", "a.tsession"}, {"TRAINSCOPE_ROOT_PID", "100"}}), 101);
  EXPECT_EQ(sub.session, "a-pid101.tsession");
}

TEST(InjectConfig, ModesAndKinds) {
  auto lean = read_config(env_of({}), 1);
  EXPECT_EQ(lean.mode, Mode::lean);
  EXPECT_EQ(std::count(lean.kinds.begin(), lean.kinds.end(), "RUNTIME"), 0);
  EXPECT_EQ(std::count(lean.kinds.begin(), lean.kinds.end(), "CONCURRENT_KERNEL"), 1);
  auto full = read_config(env_of({{"TRAINSCOPE_INJECT_MODE", "full"}}), 1);
  EXPECT_EQ(std::count(full.kinds.begin(), full.kinds.end(), "RUNTIME"), 1);
  // CUDA-graph nodes' capture-time launches: with the runtime records that make them usable only.
  EXPECT_EQ(std::count(full.kinds.begin(), full.kinds.end(), "GRAPH_NODES"), 1);
  EXPECT_EQ(std::count(lean.kinds.begin(), lean.kinds.end(), "GRAPH_NODES"), 0);
  EXPECT_TRUE(read_config(env_of({{"TRAINSCOPE_INJECT_MODE", "nvtx"}}), 1).kinds.empty());
  auto bad = read_config(env_of({{"TRAINSCOPE_INJECT_MODE", "fast"}}), 1);
  EXPECT_EQ(bad.mode, Mode::lean);
  EXPECT_EQ(bad.warnings.size(), 1u);
  auto kinds = read_config(env_of({{"TRAINSCOPE_INJECT_KINDS", "MEMCPY,BOGUS,RUNTIME"}}), 1);
  EXPECT_EQ(kinds.kinds, (std::vector<std::string>{"MEMCPY", "RUNTIME"}));
  EXPECT_EQ(kinds.warnings.size(), 1u);
  // Runtime records of the launches alone (cost measurement: lean plus the launch calls).
  auto launches = read_config(env_of({{"TRAINSCOPE_INJECT_KINDS", "CONCURRENT_KERNEL,RUNTIME_LAUNCH"}}), 1);
  EXPECT_EQ(launches.kinds, (std::vector<std::string>{"CONCURRENT_KERNEL", "RUNTIME_LAUNCH"}));
  EXPECT_TRUE(launches.warnings.empty());
}

// What each mode says it cannot give (meta inject.unavailable): lean keeps sync_bound (SYNC_CALLS)
// and pageable copies (MEMCPY) but not the launch calls (launch_bound takes the gaps instead); kernels
// alone lose sync_bound too.
TEST(InjectConfig, WhatAModeCannotGive) {
  const std::string lean = unavailable_verdicts(mode_kinds(Mode::lean));
  EXPECT_NE(lean.find("the launch calls (launch_bound takes the launch cost from the gaps"), std::string::npos);
  EXPECT_EQ(lean.find("sync_bound"), std::string::npos);
  EXPECT_EQ(lean.find("pageable"), std::string::npos);
  EXPECT_NE(lean.find("NVML"), std::string::npos);
  EXPECT_EQ(unavailable_verdicts(mode_kinds(Mode::full)), "");
  EXPECT_NE(unavailable_verdicts({"CONCURRENT_KERNEL"}).find("sync_bound"), std::string::npos);
  EXPECT_NE(unavailable_verdicts({}).find("every GPU verdict"), std::string::npos);
}

TEST(InjectConfig, PeriodsAndBufferSizeForCostMeasurements) {
  const auto d = read_config(env_of({}), 1);
  EXPECT_EQ(d.flush_ms, 250);  // the window follows within ~0.5 s (docs/profile-a-program.md)
  EXPECT_EQ(d.sample_ms, 100);
  EXPECT_EQ(d.buffer_bytes, std::size_t{1} << 20);
  EXPECT_TRUE(d.warnings.empty());
  const auto c = read_config(env_of({{"TRAINSCOPE_INJECT_FLUSH_MS", "1000"}, {"TRAINSCOPE_INJECT_SAMPLE_MS", "0"},
                                     {"TRAINSCOPE_INJECT_BUFFER_KB", "4096"}}), 1);
  EXPECT_EQ(c.flush_ms, 1000);
  EXPECT_EQ(c.sample_ms, 0);  // 0: no samplers
  EXPECT_EQ(c.buffer_bytes, std::size_t{4096} << 10);
  EXPECT_TRUE(c.warnings.empty());
  // Out of range or not a number: the default and one line naming the variable.
  const auto bad = read_config(env_of({{"TRAINSCOPE_INJECT_FLUSH_MS", "5"}, {"TRAINSCOPE_INJECT_SAMPLE_MS", "fast"},
                                       {"TRAINSCOPE_INJECT_BUFFER_KB", "0"}}), 1);
  EXPECT_EQ(bad.flush_ms, 250);
  EXPECT_EQ(bad.sample_ms, 100);
  EXPECT_EQ(bad.buffer_bytes, std::size_t{1} << 20);
  ASSERT_EQ(bad.warnings.size(), 3u);
  EXPECT_NE(bad.warnings[0].find("TRAINSCOPE_INJECT_FLUSH_MS=5"), std::string::npos) << bad.warnings[0];
  EXPECT_NE(bad.warnings[1].find("TRAINSCOPE_INJECT_SAMPLE_MS=fast"), std::string::npos) << bad.warnings[1];
  EXPECT_NE(bad.warnings[2].find("using 1024"), std::string::npos) << bad.warnings[2];
}

TEST(InjectConfig, DiscardingCuptisRecordsIsAMeasurementKnobThatSaysSo) {
  EXPECT_FALSE(read_config(env_of({}), 1).discard_buffers);
  const auto on = read_config(env_of({{"TRAINSCOPE_INJECT_DISCARD", "1"}}), 1);
  EXPECT_TRUE(on.discard_buffers);
  ASSERT_EQ(on.warnings.size(), 1u);  // a session without GPU activity must say why
  EXPECT_NE(on.warnings[0].find("thrown away unread"), std::string::npos) << on.warnings[0];
  const auto off = read_config(env_of({{"TRAINSCOPE_INJECT_DISCARD", "0"}}), 1);
  EXPECT_FALSE(off.discard_buffers);
  EXPECT_TRUE(off.warnings.empty());
  const auto bad = read_config(env_of({{"TRAINSCOPE_INJECT_DISCARD", "yes"}}), 1);
  EXPECT_FALSE(bad.discard_buffers);
  ASSERT_EQ(bad.warnings.size(), 1u);
  EXPECT_NE(bad.warnings[0].find("TRAINSCOPE_INJECT_DISCARD=yes"), std::string::npos) << bad.warnings[0];
}

TEST(CuptiLoading, AnExplicitPathAndALibraryThatIsNotCupti) {
  if (dlopen("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD))  // the copy a process has always wins
    GTEST_SKIP() << "this test process has the real libcupti loaded";
  const ts::prof::inject::CuptiApi fake = ts::prof::inject::load_cupti(TRAINSCOPE_FAKE_CUPTI);
  ASSERT_TRUE(fake.loaded) << fake.why;
  EXPECT_EQ(fake.path, TRAINSCOPE_FAKE_CUPTI);
  EXPECT_EQ(fake.error(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED), "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED");
  // No driver here: the device queries answer nothing rather than fail.
  EXPECT_TRUE(ts::prof::inject::device_meta(0).empty() || ts::prof::inject::device_meta(0).size() > 3);
}

namespace ts::prof::inject {
namespace {

TEST(InjectConfig, PmSamplingOnInFullModeAndOptionalInLean) {
  EXPECT_FALSE(read_config(env_of({}), 1).pm);
  EXPECT_TRUE(read_config(env_of({{"TRAINSCOPE_INJECT_MODE", "full"}}), 1).pm);
  EXPECT_FALSE(read_config(env_of({{"TRAINSCOPE_INJECT_MODE", "full"}, {"TRAINSCOPE_INJECT_PM", "off"}}), 1).pm);
  EXPECT_TRUE(read_config(env_of({{"TRAINSCOPE_INJECT_MODE", "lean"}, {"TRAINSCOPE_INJECT_PM", "on"}}), 1).pm);
  EXPECT_FALSE(read_config(env_of({{"TRAINSCOPE_INJECT_MODE", "nvtx"}, {"TRAINSCOPE_INJECT_PM", "on"}}), 1).pm);
  const InjectConfig bad = read_config(env_of({{"TRAINSCOPE_INJECT_PM", "maybe"}}), 1);
  EXPECT_FALSE(bad.pm);
  ASSERT_EQ(bad.warnings.size(), 1u);
  EXPECT_NE(bad.warnings[0].find("TRAINSCOPE_INJECT_PM=maybe"), std::string::npos);
}

}  // namespace
}  // namespace ts::prof::inject
