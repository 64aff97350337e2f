// Export (profiling/export): the Chrome trace read back with RapidJSON (tracks, X events per category,
// flow pairing, counters, µs with ns digits, nesting per track, gzip), the CSVs (RFC 4180 quoting),
// and output errors (a folder that does not exist, a full disk).
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <unistd.h>
#include <zlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "base/errors.h"
#include "engine/host_trace.h"
#include "profiling/event_source.h"
#include "profiling/export/chrome_trace.h"
#include "profiling/export/csv.h"

namespace ts::prof::exporter {
namespace {

namespace fs = std::filesystem;
using K = trace::RangeKind;

std::string temp(const std::string& name) {
  return (fs::temp_directory_path() / ("ts_export_" + std::to_string(getpid()) + "_" + name)).string();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string gunzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  std::string out;
  char buf[65536];
  int n = 0;
  while (f && (n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  if (f) gzclose(f);
  return out;
}

/// A small session: trainer thread 7 with two steps, a layer range, launches of kernels on stream 7,
/// a pageable H2D copy, a memset, a sync, a runtime call on a thread no host range uses, samples and
/// CUPTI memory records.
struct Session {
  EventStore s;
  Session() {
    s.set_meta("device.kind", "cuda");
    s.set_meta("device.compute_capability", "9.0");
    s.set_meta("device.multiprocessors", "132");
    s.set_meta("device.name", "NVIDIA H200");
    s.set_meta("session.start_unix_ns", "1796000219231198730");
    s.append(s.threads, ThreadRecord{7, s.strings.intern("trainer")});
    const StringId fwd = s.strings.intern("forward"), layer = s.strings.intern("layer 0 (Conv2d conv1)");
    const StringId launch = s.strings.intern("cudaLaunchKernel"), copy = s.strings.intern("cudaMemcpyAsync");
    const StringId kname = s.strings.intern("void gemm<float, 128>(int, \"x\")");
    for (int st = 1; st <= 2; ++st) {
      const std::int64_t t0 = st * 1000000;
      step(st, t0, t0 + 500000);
      range(K::step, t0 - 40, t0 + 500000, st, kNoString);
      range(K::forward, t0 + 1000, t0 + 101000, st, fwd, layer);
      runtime(7, t0 + 2000, t0 + 3500, 10 * st + 1, launch);  // inside the layer range
      kernel(t0 + 5000, t0 + 6500, 10 * st + 1, kname);
      runtime(7, t0 + 200000, t0 + 201000, 10 * st + 2, launch);  // outside any layer range
      kernel(t0 + 202000, t0 + 203000, 10 * st + 2, kname);
    }
    range(K::data_wait, 2400000, 2600000, -1, kNoString);  // after the steps
    range(K::other, 2500000, 2700000, -1, kNoString);      // crosses the data wait's end: overflow
    runtime(99, 2800000, 2801000, 50, copy);              // thread id that matches no host thread
    MemcpyRecord m;
    m.start = 2802000, m.end = 2803000, m.stream = 7, m.correlation = 50, m.bytes = 4096, m.copy_kind = 1, m.src_kind = 1,
    m.dst_kind = 3;
    s.append(s.memcpys, m);
    MemsetRecord z;
    z.start = 2900000, z.end = 2899000, z.stream = 7, z.bytes = 64, z.memory_kind = 3;  // end < start
    s.append(s.memsets, z);
    SyncRecord y;
    y.start = 2950000, y.end = 2960000, y.device = -1, y.stream = 0xFFFFFFFFu, y.type = 4;
    s.append(s.syncs, y);
    s.append(s.series, SeriesRecord{1, s.strings.intern("gpu.power"), s.strings.intern("W")});
    s.append(s.series, SeriesRecord{2, s.strings.intern("cpu.percent.trainer.7"), s.strings.intern("%")});
    s.append(s.samples, SampleRecord{1000000, 1, 250.5});
    s.append(s.samples, SampleRecord{1050000, 1, 260});
    s.append(s.samples, SampleRecord{1000000, 2, 99});
    MemoryRecord a;
    a.time = 500, a.op = 1, a.bytes = 1 << 20;
    s.append(s.memory, a);
    a.time = 3000000, a.op = 2, a.bytes = 1 << 19;
    s.append(s.memory, a);
    s.append(s.losses, LossRecord{1, 2.5f});
  }
  void step(std::int64_t gs, std::int64_t a, std::int64_t b) {
    StepRecord r;
    r.global_step = gs, r.epoch = 1, r.step = gs, r.start = a, r.end = b, r.images = 128, r.data_wait_ns = 77;
    s.append(s.steps, r);
  }
  void range(K k, std::int64_t a, std::int64_t b, std::int64_t st, StringId name, StringId layer = kNoString) {
    HostRangeRecord r;
    r.start = a, r.end = b, r.thread = 7, r.kind = static_cast<std::uint8_t>(k), r.step = st, r.name = name, r.layer = layer;
    s.append(s.host_ranges, r);
  }
  void runtime(std::uint32_t tid, std::int64_t a, std::int64_t b, std::uint32_t corr, StringId name) {
    RuntimeRecord r;
    r.start = a, r.end = b, r.thread = tid, r.correlation = corr, r.name = name, r.cbid = 211;
    s.append(s.runtime, r);
  }
  void kernel(std::int64_t a, std::int64_t b, std::uint32_t corr, StringId name) {
    KernelRecord k;
    KernelConfig c;
    k.start = a, k.end = b, k.stream = 7, k.correlation = corr, k.name = name, c.registers = 40, c.static_smem = 1024,
    c.dynamic_smem = 2048;
    c.grid[0] = 264, c.grid[1] = c.grid[2] = 1, c.block[0] = 256, c.block[1] = c.block[2] = 1;
    k.config = s.intern_config(c);
    s.append(s.kernels, k);
  }
};

/// Every X event of each (pid, tid) nests: sorted by start (longer first), none crosses an open parent.
void expect_nested(const rapidjson::Value& events) {
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::pair<std::int64_t, std::int64_t>>> tracks;
  for (const auto& e : events.GetArray())
    if (std::string(e["ph"].GetString()) == "X") {
      const auto ts = std::llround(e["ts"].GetDouble() * 1000), dur = std::llround(e["dur"].GetDouble() * 1000);
      tracks[{e["pid"].GetInt64(), e["tid"].GetInt64()}].emplace_back(ts, ts + dur);
    }
  for (auto& [key, v] : tracks) {
    std::sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.first != b.first ? a.first < b.first : a.second > b.second; });
    std::vector<std::int64_t> open;
    for (const auto& [a, b] : v) {
      while (!open.empty() && open.back() <= a) open.pop_back();
      ASSERT_TRUE(open.empty() || open.back() >= b) << "track " << key.first << "/" << key.second << " at " << a;
      open.push_back(b);
    }
  }
}

const rapidjson::Value* find_x(const rapidjson::Value& events, const char* cat, std::int64_t ts_ns) {
  for (const auto& e : events.GetArray())
    if (std::string(e["ph"].GetString()) == "X" && std::string(e["cat"].GetString()) == cat &&
        std::llround(e["ts"].GetDouble() * 1000) == ts_ns)
      return &e;
  return nullptr;
}

TEST(ExportChrome, TracksEventsFlowsCountersUnits) {
  Session x;
  const std::string path = temp("small.json");
  const ChromeTraceStats st = export_chrome_trace(x.s, path);
  const std::string text = slurp(path);
  rapidjson::Document d;
  d.Parse(text.c_str());
  ASSERT_FALSE(d.HasParseError()) << text.substr(0, 500);
  EXPECT_EQ(d["schemaVersion"].GetInt(), 1);
  EXPECT_EQ(d["baseTimeNanoseconds"].GetUint64(), 1796000219231198730ull);
  EXPECT_STREQ(d["trainscope_meta"]["device.name"].GetString(), "NVIDIA H200");
  const auto& ev = d["traceEvents"];
  std::map<std::string, int> x_by_cat, by_ph;
  std::map<std::pair<std::int64_t, std::int64_t>, std::string> thread_names;
  std::map<std::int64_t, std::string> process_names;
  for (const auto& e : ev.GetArray()) {
    const std::string ph = e["ph"].GetString();
    ++by_ph[ph];
    if (ph == "X") ++x_by_cat[e["cat"].GetString()];
    if (ph == "M" && std::string(e["name"].GetString()) == "thread_name")
      thread_names[{e["pid"].GetInt64(), e["tid"].GetInt64()}] = e["args"]["name"].GetString();
    if (ph == "M" && std::string(e["name"].GetString()) == "process_name")
      process_names[e["pid"].GetInt64()] = e["args"]["name"].GetString();
  }
  // Tracks: the trainer, the unmatched runtime thread, stream 7, the overflow track, the syncs.
  auto track = [&](std::int64_t pid, std::int64_t tid) { return thread_names[{pid, tid}]; };
  EXPECT_EQ(track(kHostPid, 7), "trainer");
  EXPECT_EQ(track(kHostPid, 99), "CUDA runtime calls (thread id 99 as CUPTI reported it)");
  EXPECT_EQ(track(0, 7), "stream 7");
  EXPECT_EQ(process_names[0], "GPU 0");
  EXPECT_EQ(process_names[kHostPid], "TrainScope host");
  int overlapping = 0;
  for (const auto& [k, name] : thread_names) overlapping += name == "trainer (overlapping)";
  EXPECT_EQ(overlapping, 1);
  EXPECT_EQ(st.overflow_events, 1);
  EXPECT_EQ(st.tracks, static_cast<std::int64_t>(thread_names.size()));
  // X events per category: 2 steps + 4 host ranges (the step ranges become the ProfilerSteps).
  EXPECT_EQ(x_by_cat["user_annotation"], 6);
  EXPECT_EQ(x_by_cat["cuda_runtime"], 5);
  EXPECT_EQ(x_by_cat["kernel"], 4);
  EXPECT_EQ(x_by_cat["gpu_memcpy"], 1);
  EXPECT_EQ(x_by_cat["gpu_memset"], 1);
  EXPECT_EQ(x_by_cat["cuda_sync"], 1);
  EXPECT_EQ(st.steps, 2);
  EXPECT_EQ(st.host_ranges, 4);
  EXPECT_EQ(st.negative_durations, 1);
  // Units: µs with the ns digits, exactly.
  EXPECT_NE(text.find("\"ts\":1005.000,\"dur\":1.500"), std::string::npos);
  const rapidjson::Value* k1 = find_x(ev, "kernel", 1005000);
  ASSERT_TRUE(k1);
  EXPECT_STREQ((*k1)["name"].GetString(), "void gemm<float, 128>(int, \"x\")");
  EXPECT_DOUBLE_EQ((*k1)["dur"].GetDouble(), 1.5);
  const auto& a = (*k1)["args"];
  EXPECT_EQ(a["correlation"].GetInt(), 11);
  EXPECT_EQ(a["stream"].GetInt(), 7);
  EXPECT_EQ(a["registers per thread"].GetInt(), 40);
  EXPECT_EQ(a["shared memory"].GetInt(), 3072);
  EXPECT_EQ(a["grid"][0].GetInt(), 264);
  EXPECT_EQ(a["block"][0].GetInt(), 256);
  EXPECT_DOUBLE_EQ(a["blocks per SM"].GetDouble(), 2.0);
  EXPECT_STREQ(a["layer"].GetString(), "layer 0 (Conv2d conv1)");
  EXPECT_EQ(a["step"].GetInt(), 1);
  const rapidjson::Value* k2 = find_x(ev, "kernel", 1202000);
  ASSERT_TRUE(k2);
  EXPECT_FALSE((*k2)["args"].HasMember("layer"));  // launched outside the layer range
  EXPECT_EQ((*k2)["args"]["step"].GetInt(), 1);
  const rapidjson::Value* s2 = find_x(ev, "user_annotation", 2000000);
  ASSERT_TRUE(s2);
  EXPECT_STREQ((*s2)["name"].GetString(), "ProfilerStep#2");
  EXPECT_EQ((*s2)["args"]["images"].GetInt(), 128);
  const rapidjson::Value* s1 = find_x(ev, "user_annotation", 1000000);
  ASSERT_TRUE(s1);
  EXPECT_DOUBLE_EQ((*s1)["args"]["loss"].GetDouble(), 2.5);
  const rapidjson::Value* cp = find_x(ev, "gpu_memcpy", 2802000);
  ASSERT_TRUE(cp);
  EXPECT_STREQ((*cp)["name"].GetString(), "Memcpy HtoD (Pageable -> Device)");
  EXPECT_EQ((*cp)["args"]["bytes"].GetInt(), 4096);
  EXPECT_STREQ((*cp)["args"]["copy kind"].GetString(), "HtoD");
  const rapidjson::Value* ms = find_x(ev, "gpu_memset", 2900000);
  ASSERT_TRUE(ms);
  EXPECT_EQ((*ms)["dur"].GetDouble(), 0.0);
  // Flows: one s and one f per id; s on the launch call's track and time, f (bp e) on the op's.
  std::map<std::uint64_t, std::vector<const rapidjson::Value*>> flows;
  for (const auto& e : ev.GetArray()) {
    const std::string ph = e["ph"].GetString();
    if (ph == "s" || ph == "f") {
      EXPECT_STREQ(e["cat"].GetString(), "ac2g");
      flows[e["id"].GetUint64()].push_back(&e);
    }
  }
  EXPECT_EQ(flows.size(), 5u);
  EXPECT_EQ(st.flows, 5);
  for (const auto& [id, v] : flows) {
    ASSERT_EQ(v.size(), 2u) << id;
    const bool first_is_s = (*v[0])["ph"].GetString()[0] == 's';
    const auto& s = first_is_s ? *v[0] : *v[1];
    const auto& f = first_is_s ? *v[1] : *v[0];
    EXPECT_STREQ(s["ph"].GetString(), "s");
    EXPECT_STREQ(f["ph"].GetString(), "f");
    EXPECT_STREQ(f["bp"].GetString(), "e");
    EXPECT_EQ(s["pid"].GetInt64(), kHostPid);
    EXPECT_EQ(f["pid"].GetInt64(), 0);
    EXPECT_EQ(f["tid"].GetInt64(), 7);
  }
  ASSERT_EQ(flows[11].size(), 2u);
  for (const auto* e : flows[11]) {
    if (std::string((*e)["ph"].GetString()) == "s") {
      EXPECT_DOUBLE_EQ((*e)["ts"].GetDouble(), 1002.0);
    } else {
      EXPECT_DOUBLE_EQ((*e)["ts"].GetDouble(), 1005.0);
    }
  }
  ASSERT_EQ(flows[50].size(), 2u);
  for (const auto* e : flows[50]) {
    if (std::string((*e)["ph"].GetString()) == "s") {
      EXPECT_EQ((*e)["tid"].GetInt64(), 99);
    }
  }
  // Counters: 3 samples (the unit names the arg) + 2 CUPTI memory records (bytes held).
  EXPECT_EQ(by_ph["C"], 5);
  EXPECT_EQ(st.counter_events, 5);
  std::vector<double> held;
  for (const auto& e : ev.GetArray()) {
    if (std::string(e["ph"].GetString()) != "C") continue;
    const std::string name = e["name"].GetString();
    if (name == "gpu.power") {
      EXPECT_TRUE(e["args"].HasMember("W"));
    }
    if (name == "cpu.percent.trainer.7") {
      EXPECT_EQ(e["pid"].GetInt64(), kHostPid);
      EXPECT_DOUBLE_EQ(e["args"]["%"].GetDouble(), 99);
    }
    if (name == "cuda.malloc.held") held.push_back(e["args"]["bytes"].GetDouble());
  }
  EXPECT_EQ(held, (std::vector<double>{1 << 20, 1 << 19}));
  expect_nested(ev);
  fs::remove(path);
}

TEST(ExportChrome, GzipWhenTheNameEndsInGz) {
  Session x;
  const std::string plain = temp("g.json"), gz = temp("g.json.gz");
  export_chrome_trace(x.s, plain);
  export_chrome_trace(x.s, gz);
  const std::string a = slurp(plain), b = gunzip(gz);
  EXPECT_EQ(a, b);
  EXPECT_LT(fs::file_size(gz), a.size());
  EXPECT_EQ(static_cast<unsigned char>(slurp(gz)[0]), 0x1f);  // gzip magic
  fs::remove(plain);
  fs::remove(gz);
}

TEST(ExportChrome, RealSessionEveryEventOnceAndNested) {
  auto src = open_session(std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data/gpu_b128_nw4.tsession");
  const EventStore& s = src->store();
  const std::string path = temp("real.json");
  const ChromeTraceStats st = export_chrome_trace(s, path);
  EXPECT_EQ(st.kernels, static_cast<std::int64_t>(s.kernels.size()));
  EXPECT_EQ(st.memcpys, static_cast<std::int64_t>(s.memcpys.size()));
  EXPECT_EQ(st.memsets, static_cast<std::int64_t>(s.memsets.size()));
  EXPECT_EQ(st.runtime_calls, static_cast<std::int64_t>(s.runtime.size()));
  EXPECT_EQ(st.steps, 80);
  EXPECT_EQ(st.steps + st.host_ranges, static_cast<std::int64_t>(s.host_ranges.size()));  // step ranges -> ProfilerStep
  EXPECT_EQ(st.counter_events, static_cast<std::int64_t>(s.samples.size() + s.memory.size()));
  rapidjson::Document d;
  d.Parse(slurp(path).c_str());
  ASSERT_FALSE(d.HasParseError());
  std::int64_t kernels = 0, s_count = 0, f_count = 0;
  for (const auto& e : d["traceEvents"].GetArray()) {
    const std::string ph = e["ph"].GetString();
    if (ph == "X" && std::string(e["cat"].GetString()) == "kernel") ++kernels;
    s_count += ph == "s", f_count += ph == "f";
  }
  EXPECT_EQ(kernels, st.kernels);
  EXPECT_EQ(s_count, st.flows);
  EXPECT_EQ(f_count, st.flows);
  EXPECT_GT(st.flows, 4000);
  expect_nested(d["traceEvents"]);
  fs::remove(path);
}

/// Splits one CSV line (no embedded line breaks) per RFC 4180.
std::vector<std::string> parse_csv_line(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') out.back() += '"', ++i;
      else if (c == '"') quoted = false;
      else out.back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

TEST(ExportCsv, QuotingFollowsRfc4180) {
  EXPECT_EQ(csv_field("plain_kernel"), "plain_kernel");
  EXPECT_EQ(csv_field("void f<float, 128>(int)"), "\"void f<float, 128>(int)\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field(""), "");
}

TEST(ExportCsv, KernelAndStepTables) {
  Session x;
  const std::string kpath = temp("k.csv"), spath = temp("s.csv");
  EXPECT_EQ(export_kernels_csv(x.s, kpath), 1u);
  const std::string k = slurp(kpath);
  std::istringstream kin(k);
  std::string header, row;
  std::getline(kin, header);
  std::getline(kin, row);
  EXPECT_EQ(header, "name,calls,total_ns,mean_ns,min_ns,max_ns,share_of_kernel_time,mean_theoretical_occupancy,tensor_cores\r");
  ASSERT_FALSE(row.empty());
  row.pop_back();  // CR
  const auto f = parse_csv_line(row);
  ASSERT_EQ(f.size(), 9u) << row;
  EXPECT_EQ(f[0], "void gemm<float, 128>(int, \"x\")");
  EXPECT_EQ(f[1], "4");
  EXPECT_EQ(f[2], "5000");  // 1500 + 1000, twice
  EXPECT_EQ(f[4], "1000");
  EXPECT_EQ(f[5], "1500");

  EXPECT_EQ(export_steps_csv(x.s, spath), 2u);
  EXPECT_EQ(slurp(spath),
            "global_step,epoch,step,start_ns,duration_ns,images,data_wait_ns,loss\r\n"
            "1,1,1,1000000,500000,128,77,2.5\r\n"
            "2,1,2,2000000,500000,128,77,\r\n");
  fs::remove(kpath);
  fs::remove(spath);
}

TEST(ExportOutput, ErrorsNameTheFile) {
  Session x;
  try {
    export_steps_csv(x.s, "/nonexistent-folder/steps.csv");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-folder/steps.csv"), std::string::npos) << e.what();
  }
  if (fs::exists("/dev/full")) {
    try {
      export_chrome_trace(x.s, "/dev/full");
      FAIL() << "no error on a full device";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("/dev/full"), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
}

}  // namespace
}  // namespace ts::prof::exporter
