// profiling/import on the hand-written fixtures of tests/data/traces (one oddity each, see its
// README): mapping to records, times, warnings with offsets, errors, progress and cancel.
#include <gtest/gtest.h>
#include <zlib.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/host_trace.h"
#include "profiling/import/trace_analysis.h"
#include "profiling/import/trace_import.h"

namespace imp = ts::prof::import;
using ts::prof::EventStore;

namespace {

std::string fixture(const std::string& name) { return std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data/traces/" + name; }

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

imp::ImportedTrace load(const std::string& name) { return imp::import_trace(fixture(name)); }

const imp::ImportWarning* find_warning(const imp::ImportSummary& s, const std::string& part) {
  for (const auto& w : s.warnings)
    if (w.what.find(part) != std::string::npos) return &w;
  return nullptr;
}

std::int64_t warning_count(const imp::ImportSummary& s, const std::string& part) {
  const auto* w = find_warning(s, part);
  return w ? w->count : 0;
}

std::string meta(const EventStore& s, const std::string& key) {
  const auto m = s.meta();
  auto it = m.find(key);
  return it == m.end() ? "<absent>" : it->second;
}

const ts::prof::HostRangeRecord* range_named(const EventStore& s, const std::string& name) {
  for (std::size_t i = 0; i < s.host_ranges.size(); ++i)
    if (s.strings.get(s.host_ranges[i].name) == name) return &s.host_ranges[i];
  return nullptr;
}

std::string gzip(const std::string& text) {
  z_stream z{};
  deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, text.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace

TEST(Import, KinetoObjectFormMapsEveryCategory) {
  const auto t = load("kineto_small.json");
  const EventStore& s = *t.store;
  EXPECT_EQ(t.summary.kind, "PyTorch trace");
  EXPECT_EQ(t.summary.format, "object form, schemaVersion 1");
  EXPECT_EQ(t.summary.warning_count(), 0) << t.summary.warnings_text();
  // Steps: ProfilerStep#7 at the earliest event (time 0), 100 µs, 30 µs of DataLoader wait in it.
  ASSERT_EQ(s.steps.size(), 2u);
  EXPECT_EQ(s.steps[0].global_step, 7);
  EXPECT_EQ(s.steps[0].start, 0);
  EXPECT_EQ(s.steps[0].end, 100'000);
  EXPECT_EQ(s.steps[0].data_wait_ns, 30'000);
  EXPECT_EQ(s.steps[1].global_step, 8);
  const auto* wait = range_named(s, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
  ASSERT_NE(wait, nullptr);
  EXPECT_EQ(wait->kind, static_cast<std::uint8_t>(ts::trace::RangeKind::data_wait));
  EXPECT_EQ(wait->step, 7);
  // The GPU-side ProfilerStep#8 annotation is a range, not a third step.
  ASSERT_EQ(s.kernels.size(), 1u);
  const auto& k = s.kernels[0];
  EXPECT_EQ(k.start, 50'000);
  EXPECT_EQ(k.end, 70'500);  // dur 20.5 µs
  EXPECT_EQ(k.stream, 7u);
  EXPECT_EQ(k.correlation, 500u);
  const auto& kc = s.config(k);
  EXPECT_EQ(kc.grid[0], 264);
  EXPECT_EQ(kc.grid[1], 2);
  EXPECT_EQ(kc.block[0], 128);
  EXPECT_EQ(kc.registers, 64);
  EXPECT_EQ(kc.static_smem, 4096);
  EXPECT_EQ(k.rank, 3);  // distributedInfo.rank
  ASSERT_EQ(s.memcpys.size(), 1u);
  EXPECT_EQ(s.memcpys[0].copy_kind, 1);  // HtoD
  EXPECT_EQ(s.memcpys[0].src_kind, 2);   // pinned
  EXPECT_EQ(s.memcpys[0].dst_kind, 3);   // device
  EXPECT_EQ(s.memcpys[0].bytes, 65536);
  ASSERT_EQ(s.memsets.size(), 1u);
  EXPECT_EQ(s.memsets[0].memory_kind, 3);
  ASSERT_EQ(s.runtime.size(), 4u);
  for (std::size_t i = 0; i < s.runtime.size(); ++i) EXPECT_EQ(s.runtime[i].thread, 10u);
  // [memory]: old args (CPU, Device Id -1) and new ones (Addr, totals -> samples).
  ASSERT_EQ(s.memory.size(), 3u);
  EXPECT_EQ(s.memory[0].device, -1);
  EXPECT_EQ(s.memory[0].bytes, 4);
  EXPECT_EQ(s.memory[1].device, 0);
  EXPECT_EQ(s.memory[1].op, 1);
  EXPECT_EQ(s.memory[1].address, 139900000000000ull);
  EXPECT_EQ(s.memory[2].op, 2);
  EXPECT_EQ(s.memory[2].bytes, 1048576);
  EXPECT_EQ(s.series.size(), 4u);   // torch.allocated/reserved.cuda:0, queue.depth, queue.bytes
  EXPECT_EQ(s.samples.size(), 8u);
  // Meta as the profiler writes it, plus the import's own keys.
  EXPECT_EQ(meta(s, "device.kind"), "cuda");
  EXPECT_EQ(meta(s, "device.name"), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(meta(s, "device.compute_capability"), "9.0");
  EXPECT_EQ(meta(s, "device.multiprocessors"), "132");
  EXPECT_EQ(meta(s, "device.total_memory_bytes"), "85018279936");
  EXPECT_EQ(meta(s, "versions.cuda_runtime"), "12040");
  EXPECT_EQ(meta(s, "distributed.world_size"), "8");
  EXPECT_EQ(meta(s, "session.start_unix_ns"), "1700000000001000000");  // base + earliest ts
  EXPECT_EQ(meta(s, "import.source_path"), fixture("kineto_small.json"));
  EXPECT_EQ(meta(s, "import.display_time_unit"), "ms");
  EXPECT_EQ(meta(s, "import.warnings"), "none");
}

TEST(Import, AnalysisClassifiesImportedSyncAndDataWait) {
  const auto t = load("kineto_small.json");
  const auto r = imp::analyze_imported(*t.store);
  EXPECT_EQ(r.steps, 2);
  EXPECT_EQ(r.data_wait_ns, 30'000);
  // cudaStreamSynchronize on the trainer thread is a host sync: the GPU idle after it is sync-caused.
  ASSERT_TRUE(r.idle_sync_ns.has_value());
  EXPECT_GT(*r.idle_sync_ns, 0);
  EXPECT_TRUE(r.gpu_present);
}

TEST(Import, SameThreadAsStringAndNumber) {
  const auto t = load("tid_string_and_number.json");
  const EventStore& s = *t.store;
  ASSERT_EQ(s.runtime.size(), 1u);
  const auto* outer = range_named(s, "outer");
  ASSERT_NE(outer, nullptr);
  EXPECT_EQ(outer->thread, 100u);
  EXPECT_EQ(s.runtime[0].thread, 100u);
  EXPECT_EQ(range_named(s, "other thread")->thread, 101u);
  EXPECT_EQ(s.threads.size(), 2u);  // 100 and 101, once each
  EXPECT_EQ(s.memory.size(), 1u);
}

TEST(Import, DisplayTimeUnitDoesNotScaleTimestamps) {
  const auto t = load("display_unit_ns.json");
  const EventStore& s = *t.store;
  const auto* a = range_named(s, "a");
  const auto* b = range_named(s, "b");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->start, 0);
  EXPECT_EQ(a->end, 2250);  // 2.25 µs, not 2.25 ns
  EXPECT_EQ(b->start, 9500);
  EXPECT_EQ(b->end, 10500);
  EXPECT_EQ(meta(s, "import.display_time_unit"), "ns");
}

TEST(Import, BareNanAndInfAreNonFiniteNumbers) {
  const auto t = load("nan_inf_bare.json");
  const EventStore& s = *t.store;
  EXPECT_NE(range_named(s, "ok"), nullptr);
  EXPECT_EQ(range_named(s, "ts is nan"), nullptr);
  EXPECT_EQ(range_named(s, "dur is inf"), nullptr);
  EXPECT_EQ(s.kernels.size(), 1u);  // inf/NaN in args it does not map do not matter
  EXPECT_EQ(s.samples.size(), 1u);  // the counter's finite value
  EXPECT_EQ(warning_count(t.summary, "non-finite"), 3);
  EXPECT_EQ(warning_count(t.summary, "bare nan/inf"), 5);
}

TEST(Import, RawControlCharactersInStringsAreAcceptedWithAWarning) {
  const std::string path = fixture("control_char.json");
  const auto t = imp::import_trace(path);
  EXPECT_NE(range_named(*t.store, "tab here and   there"), nullptr);
  EXPECT_NE(range_named(*t.store, "clean"), nullptr);
  const auto* w = find_warning(t.summary, "control characters");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->count, 2);
  EXPECT_EQ(w->first_offset, static_cast<std::int64_t>(read_file(path).find('\t')));
}

TEST(Import, LegacyArrayFormWithStringPidsAndCapitalisedCategories) {
  const auto t = load("legacy_array_string_pids.json");
  const EventStore& s = *t.store;
  EXPECT_EQ(t.summary.format, "array form");
  EXPECT_EQ(t.summary.kind, "PyTorch trace");
  ASSERT_EQ(s.steps.size(), 1u);
  ASSERT_EQ(s.kernels.size(), 1u);
  EXPECT_EQ(s.kernels[0].stream, 7u);
  EXPECT_EQ(s.kernels[0].correlation, 9u);
  ASSERT_EQ(s.memcpys.size(), 1u);
  EXPECT_EQ(s.memcpys[0].stream, 7u);      // from tid "stream 7": no stream arg
  EXPECT_EQ(s.memcpys[0].copy_kind, 2);    // DtoH
  EXPECT_EQ(s.memcpys[0].dst_kind, 1);     // pageable
  ASSERT_EQ(s.memsets.size(), 1u);
  ASSERT_EQ(s.runtime.size(), 2u);
  const auto* step = range_named(s, "ProfilerStep#1");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(s.runtime[0].thread, step->thread);  // string tid "main": one synthetic lane
  bool named = false;
  for (std::size_t i = 0; i < s.threads.size(); ++i)
    named |= s.threads[i].tid == step->thread && s.strings.get(s.threads[i].name) == "main thread";
  EXPECT_TRUE(named);
}

TEST(Import, OverlappingAndUnnestedRangesAreKept) {
  const auto t = load("overlap_no_nesting.json");
  const EventStore& s = *t.store;
  const auto* first = range_named(s, "first");
  const auto* second = range_named(s, "second overlaps first");
  const auto* parent = range_named(s, "parent");
  const auto* child = range_named(s, "child ends after parent");
  ASSERT_TRUE(first && second && parent && child);
  EXPECT_EQ(second->start, 5000);
  EXPECT_LT(second->start, first->end);
  EXPECT_GT(child->end, parent->end);
  const auto* be = range_named(s, "begin-end");
  const auto* inner = range_named(s, "inner");
  ASSERT_TRUE(be && inner);
  EXPECT_EQ(be->start, 40'000);
  EXPECT_EQ(be->end, 45'000);
  EXPECT_EQ(inner->end, 43'000);
  EXPECT_EQ(warning_count(t.summary, "E events without"), 1);
  EXPECT_EQ(warning_count(t.summary, "never closed"), 1);
  EXPECT_NE(range_named(s, "never closed"), nullptr);
  EXPECT_EQ(s.host_ranges.size(), 7u);
}

TEST(Import, FlowsWithoutStartsAndClockSkewAreCountedAndLinkedByCorrelation) {
  const auto t = load("flows_skew.json");
  const EventStore& s = *t.store;
  EXPECT_EQ(warning_count(t.summary, "flow ends (f) without"), 2);
  const auto* skew = find_warning(t.summary, "clock skew");
  ASSERT_NE(skew, nullptr);
  EXPECT_EQ(skew->count, 1);
  EXPECT_NE(skew->first_detail.find("correlation id 1"), std::string::npos);
  EXPECT_NE(meta(s, "import.flows").find("at most 3 ends per id"), std::string::npos);
  // The skewed kernel is the earliest event: time 0, still linked to its launch by correlation id.
  ASSERT_EQ(s.kernels.size(), 3u);
  EXPECT_EQ(s.kernels[0].start, 0);
  EXPECT_EQ(s.kernels[0].correlation, 1u);
  int graph_ops = 0;
  for (std::size_t i = 0; i < s.kernels.size(); ++i) graph_ops += s.kernels[i].correlation == 2;
  graph_ops += s.memsets.size() == 1 && s.memsets[0].correlation == 2;
  EXPECT_EQ(graph_ops, 3);  // a cudaGraphLaunch fans out
  EXPECT_EQ(meta(s, "import.gpu_ops_without_launch_call"), "0");
}

TEST(Import, ComputePropertiesAndNoMetadata) {
  const auto t = load("compute_properties.json");
  const EventStore& s = *t.store;
  EXPECT_EQ(meta(s, "import.device_properties"), "computeProperties");
  EXPECT_EQ(meta(s, "device.compute_capability"), "7.0");
  EXPECT_EQ(meta(s, "device.multiprocessors"), "80");
  EXPECT_EQ(meta(s, "device.max_threads_per_sm"), "2048");
  EXPECT_EQ(meta(s, "session.start_unix_ns"), "1621401187225275000");
  EXPECT_EQ(s.threads.size(), 0u);
  const auto dev = ts::prof::analysis::device_props(s.meta());
  EXPECT_TRUE(dev.known);
  EXPECT_EQ(dev.sms, 80);
}

TEST(Import, NcclKernelsAreTaggedAsCommunication) {
  const auto t = load("nccl.json");
  EXPECT_EQ(t.summary.communication_kernels, 2);
  EXPECT_EQ(meta(*t.store, "import.communication_kernels"), "2");
  EXPECT_TRUE(imp::is_communication_kernel("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8"));
  EXPECT_TRUE(imp::is_communication_kernel("void ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)"));
  EXPECT_FALSE(imp::is_communication_kernel("void at::native::vectorized_elementwise_kernel<4>(int)"));
}

TEST(Import, IntegersBeyondTheFieldsAreOutOfRangeNotACrash) {
  const auto t = load("big_ints.json");
  const EventStore& s = *t.store;
  ASSERT_EQ(s.kernels.size(), 2u);
  EXPECT_EQ(s.kernels[0].correlation, 0u);
  EXPECT_EQ(s.kernels[1].correlation, 0u);
  EXPECT_EQ(s.config(s.kernels[0]).registers, 0);
  ASSERT_EQ(s.memory.size(), 1u);
  EXPECT_EQ(s.memory[0].address, UINT64_MAX);
  EXPECT_EQ(warning_count(t.summary, "out of range"), 4);
  EXPECT_NE(range_named(s, "ok"), nullptr);
}

TEST(Import, DuplicatedMetadataOnceAndConflictsWarned) {
  const auto t = load("duplicate_meta.json");
  const EventStore& s = *t.store;
  ASSERT_EQ(s.threads.size(), 1u);
  EXPECT_EQ(s.strings.get(s.threads[0].name), "trainer");
  EXPECT_EQ(meta(s, "import.process.1.name"), "renamed");
  EXPECT_EQ(warning_count(t.summary, "redefine"), 1);
}

TEST(Import, BadEventsAreSkippedAndCountedWithTheirOffset) {
  const std::string path = fixture("bad_events.json");
  const std::string text = read_file(path);
  const auto t = imp::import_trace(path);
  const EventStore& s = *t.store;
  EXPECT_EQ(t.summary.events_read, 12);
  EXPECT_EQ(s.kernels.size(), 2u);
  EXPECT_EQ(s.host_ranges.size(), 2u);  // "args is a number" (args ignored) and "good"
  const auto* missing = find_warning(t.summary, "missing a field");
  ASSERT_NE(missing, nullptr);
  EXPECT_EQ(missing->count, 2);
  EXPECT_EQ(missing->first_offset, static_cast<std::int64_t>(text.find("{\"cat\": \"cpu_op\", \"name\": \"no ph\"")));
  EXPECT_EQ(missing->first_detail, "ph");
  EXPECT_EQ(warning_count(t.summary, "wrong JSON type"), 2);
  EXPECT_EQ(warning_count(t.summary, "negative durations"), 1);
  const auto* not_obj = find_warning(t.summary, "not objects");
  ASSERT_NE(not_obj, nullptr);
  EXPECT_EQ(not_obj->count, 3);
  EXPECT_EQ(not_obj->first_offset, static_cast<std::int64_t>(text.find("17,")) + 1);  // a scalar's last byte
  EXPECT_EQ(warning_count(t.summary, "unknown or unsupported phases"), 1);
  const auto* order = find_warning(t.summary, "out of time order");
  ASSERT_NE(order, nullptr);
  EXPECT_EQ(order->first_offset, static_cast<std::int64_t>(text.find("{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"earlier")));
  EXPECT_NE(meta(s, "import.warnings").find("first at byte"), std::string::npos);
  // Tables come out sorted by start even so.
  EXPECT_LT(s.kernels[0].start, s.kernels[1].start);
}

TEST(Import, NotJsonIsOneLineNamingFileAndByte) {
  const std::string path = fixture("not_json.json");
  try {
    imp::import_trace(path);
    FAIL() << "no error";
  } catch (const ts::InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(path), std::string::npos) << m;
    EXPECT_NE(m.find("not valid JSON"), std::string::npos) << m;
    EXPECT_NE(m.find("at byte 0"), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos);
  }
}

TEST(Import, WrongTopLevelTypesAreErrors) {
  EXPECT_THROW(imp::import_trace(fixture("wrong_top_type.json")), ts::InputError);
  for (const std::string text : {"42", "\"trace\"", "{\"schemaVersion\": 1}", "", "   ", "{\"traceEvents\": {}}",
                                 "[] trailing", "\xef\xbb\xbf[]"}) {
    EXPECT_THROW(imp::import_trace_bytes(text.data(), text.size(), "mem.json"), ts::InputError) << text;
  }
  EXPECT_THROW(imp::import_trace("/nonexistent/trace.json"), ts::InputError);
  // A session file given as a trace: named as such, not "not valid JSON at byte 0".
  try {
    imp::import_trace(std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/data/gpu_b16_nw4.tsession");
    ADD_FAILURE() << "a session imported as a trace";
  } catch (const ts::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not a trace: open it as a session"), std::string::npos) << e.what();
  }
  const std::string empty_ok = "{\"traceEvents\": []}";
  EXPECT_EQ(imp::import_trace_bytes(empty_ok.data(), empty_ok.size(), "m").store->counts().events(), 0u);
}

TEST(Import, TruncatedArrayKeepsTheEventsBeforeTheCut) {
  const std::string text = read_file(fixture("kineto_small.json"));
  const std::string cut = text.substr(0, text.find("{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaMemcpyAsync\"") + 20);
  const auto t = imp::import_trace_bytes(cut.data(), cut.size(), "cut.json");
  EXPECT_TRUE(t.summary.truncated);
  EXPECT_EQ(warning_count(t.summary, "ends early"), 1);
  EXPECT_EQ(t.store->kernels.size(), 1u);
  EXPECT_EQ(t.store->memcpys.size(), 0u);
  EXPECT_EQ(meta(*t.store, "import.truncated"), "yes");
  // Cut before the first complete event: an error naming the offset.
  const std::string early = text.substr(0, text.find("\"traceEvents\"") + 30);
  EXPECT_THROW(imp::import_trace_bytes(early.data(), early.size(), "early.json"), ts::InputError);
}

TEST(Import, GzipStreamCutShortFromFileAndMemory) {
  const std::string text = read_file(fixture("kineto_small.json"));
  const std::string gz = gzip(text);
  const auto whole = imp::import_trace_bytes(gz.data(), gz.size(), "whole.json.gz");
  EXPECT_FALSE(whole.summary.truncated);
  EXPECT_EQ(whole.store->kernels.size(), 1u);
  const std::string cut = gz.substr(0, gz.size() * 3 / 4);
  const auto mem = imp::import_trace_bytes(cut.data(), cut.size(), "cut.json.gz");
  EXPECT_TRUE(mem.summary.truncated);
  const auto* w = find_warning(mem.summary, "ends early");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->first_detail, "the gzip stream is cut short");
  EXPECT_GT(mem.store->host_ranges.size(), 0u);
  const auto path = std::filesystem::temp_directory_path() / "ts_import_cut.json.gz";
  std::ofstream(path, std::ios::binary) << cut;
  const auto file = imp::import_trace(path.string());
  EXPECT_TRUE(file.summary.truncated);
  EXPECT_EQ(file.store->counts().events(), mem.store->counts().events());
  std::filesystem::remove(path);
  // A damaged gzip stream (not just short) is an error naming the file.
  std::string bad = gz;
  for (std::size_t i = 12; i < 40 && i < bad.size(); ++i) bad[i] = static_cast<char>(~bad[i]);
  EXPECT_THROW(imp::import_trace_bytes(bad.data(), bad.size(), "bad.json.gz"), ts::InputError);
}

TEST(Import, NanSplitAcrossBlocksAndDeepNesting) {
  // "nan" straddling the reader's 256 KiB block boundary is still read as a number.
  std::string text = "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"";
  const std::string tail = "\", \"pid\": 1, \"tid\": 1, \"ts\": nan, \"dur\": 1}, {\"ph\": \"X\", \"name\": \"b\", \"pid\": 1, \"tid\": 1, \"ts\": 3, \"dur\": 1}]}";
  const std::size_t boundary = 256 * 1024;
  text += std::string(boundary - 1 - text.size() - tail.find("nan"), 'x');
  text += tail;
  ASSERT_EQ(text.find("nan"), boundary - 1);
  const auto t = imp::import_trace_bytes(text.data(), text.size(), "split.json");
  EXPECT_EQ(warning_count(t.summary, "non-finite"), 1);
  EXPECT_EQ(t.store->host_ranges.size(), 1u);
  // 200k nested arrays: the iterative parser, no stack overflow.
  std::string deep = "{\"traceEvents\": [{\"ph\": \"X\", \"args\": {\"x\": " + std::string(200000, '[') +
                     std::string(200000, ']') + "}, \"ts\": 1, \"dur\": 1}]}";
  EXPECT_EQ(imp::import_trace_bytes(deep.data(), deep.size(), "deep.json").store->host_ranges.size(), 1u);
}

TEST(Import, ProgressReachesTheTotalAndCancelStops) {
  std::vector<std::pair<std::int64_t, std::int64_t>> calls;
  imp::ImportOptions o;
  o.progress = [&](std::int64_t done, std::int64_t total) { calls.emplace_back(done, total); };
  imp::import_trace(fixture("kineto_small.json"), o);
  ASSERT_FALSE(calls.empty());
  const auto size = static_cast<std::int64_t>(std::filesystem::file_size(fixture("kineto_small.json")));
  EXPECT_EQ(calls.back().first, size);
  EXPECT_EQ(calls.back().second, size);
  for (std::size_t i = 1; i < calls.size(); ++i) EXPECT_GE(calls[i].first, calls[i - 1].first);
  std::atomic<bool> cancel{true};
  imp::ImportOptions c;
  c.cancel = &cancel;
  EXPECT_THROW(imp::import_trace(fixture("kineto_small.json"), c), imp::ImportCancelled);
}

TEST(Import, OpenTraceIsAnEventSource) {
  const auto src = imp::open_trace(fixture("kineto_small.json"));
  EXPECT_EQ(src->kind(), "PyTorch trace");
  EXPECT_EQ(src->origin(), fixture("kineto_small.json"));
  EXPECT_EQ(src->store().kernels.size(), 1u);
  EXPECT_EQ(imp::open_trace(fixture("overlap_no_nesting.json"))->kind(), "Chrome trace");
  EXPECT_TRUE(imp::is_trace_path("a/worker0.pt.trace.json.gz"));
  EXPECT_TRUE(imp::is_trace_path("trace.JSON"));
  EXPECT_FALSE(imp::is_trace_path("run.tsession"));
}

// One warm-up rule for every view that counts analysed steps: none for an imported trace (its profiler's
// schedule left its warm-up out), the analysis default for TrainScope's own sessions. The Step breakdown
// said "warm-up left out: 1 step(s)" of a trace whose verdicts analysed every step.
TEST(ImportAnalysis, WarmupStepsOneRuleForEveryView) {
  EventStore own, trace;
  trace.set_meta("import.format", "kineto");
  EXPECT_EQ(imp::warmup_steps_for(own), ts::prof::analysis::kDefaultWarmupSteps);
  EXPECT_EQ(imp::warmup_steps_for(trace), 0);
}
