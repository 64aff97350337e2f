// Profiler (see profiler.h).
#include "profiling/profiler.h"

#include <sys/utsname.h>

#include <atomic>
#include <climits>
#include <condition_variable>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "base/crash_report.h"
#include "base/errors.h"
#include "engine/host_trace.h"
#include "profiling/background_thread.h"
#include "profiling/cupti/cupti_collector.h"
#include "profiling/host_collector.h"
#include "profiling/metrics/pm_sampler.h"
#include "profiling/samplers.h"
#include "profiling/session/session_file.h"

namespace ts::prof {

ProfileParts profile_parts_from_env() {
  ProfileParts p;
  const char* env = std::getenv("TRAINSCOPE_PROFILE_SKIP");
  const std::string text = env ? env : "";
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    const std::string part = text.substr(pos, comma - pos);
    pos = comma + 1;
    if (part.empty()) continue;
    if (part == "kernels") p.cupti_kinds.kernels = false;
    else if (part == "copies") p.cupti_kinds.copies = false;
    else if (part == "runtime") p.cupti_kinds.runtime = false;
    else if (part == "syncs") p.cupti_kinds.syncs = false;
    else if (part == "memory") p.cupti_kinds.memory = false;
    else if (part == "graph_nodes") p.cupti_kinds.graph_nodes = false;
    else if (part == "cupti") p.cupti = false;
    else if (part == "samplers") p.samplers = false;
    else if (part == "host") p.host = false;
    else if (part == "writer") p.writer = false;
    else if (part == "pm") p.pm = false;
    else
      throw InputError("TRAINSCOPE_PROFILE_SKIP: unknown part '" + part +
                       "' (kernels, copies, runtime, syncs, memory, graph_nodes, cupti, samplers, host, writer, pm)");
  }
  return p;
}

std::string default_session_path() {
  char buf[64];
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  std::strftime(buf, sizeof(buf), "trainscope-%Y%m%d-%H%M%S.tsession", &tm);
  return (std::filesystem::current_path() / buf).string();
}

namespace {

/// Meta session.trace_mode: how GPU work was traced (docs/session-format.md).
std::string trace_mode_text(const ProfilerOptions& o) {
  if (!o.schedule.enabled) return kTraceEveryKernel;
  return o.graph_replays_between_windows ? kTraceHybrid : kTraceWindows;
}

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

}  // namespace

/// The engine's trace sink: applies the schedule, then hands on to the host collector.
struct Profiler::Impl final : trace::Sink {
  ProfilerOptions options;
  std::shared_ptr<EventStore> shared = std::make_shared<EventStore>();  // outlives the Profiler for viewers
  EventStore& store = *shared;
  std::int64_t start_host = trace::now_ns();
  SessionClock clock{start_host, 0};
  std::unique_ptr<SessionWriter> writer;
  std::unique_ptr<HostCollector> host;
  std::unique_ptr<CuptiCollector> cupti;
  std::unique_ptr<Samplers> samplers;
  std::unique_ptr<PmSampler> pm;
  std::atomic<bool> recording{true};
  std::int64_t measuring_since = 0, paused_ns = 0;  // on_measuring's, on the engine's thread
  // What CUPTI records, on the engine's thread: nothing while the engine times candidates
  // (on_measuring); between a schedule's windows (on_step) nothing, so that a scheduled run pays
  // CUPTI's per-step cost only in its windows (bench/profile_cost.sh: ~55-75 us a step on an H100 with
  // any activity kind on, 12 % of a b128 CUDA-graph step), or in a hybrid recording whole CUDA-graph
  // replays (~1 % of a b128 step: RESULTS.md, "Graph-level tracing, a cost probe"); else every kind.
  bool measuring = false, between_windows = false;
  CuptiMode cupti_mode = CuptiMode::kinds;
  void apply_cupti_mode() {
    const CuptiMode want = measuring ? CuptiMode::off
                           : between_windows ? (options.graph_replays_between_windows ? CuptiMode::graph_replays : CuptiMode::off)
                                             : CuptiMode::kinds;
    if (!cupti || want == cupti_mode) return;
    cupti->set_mode(want);
    cupti_mode = want;
  }
  std::mutex mutex;
  std::condition_variable cv;
  bool stopping = false, stopped = false;
  std::thread pump;
  ProfilerSummary summary;

  void on_range(const trace::RangeEvent& e) override {
    if (options.parts.host && recording.load(std::memory_order_relaxed)) host->on_range(e);
  }
  void on_step(const trace::StepEvent& e) override {
    set_crash_step(e.global_step);  // a crash report says which step the run had reached
    host->on_step(e);
    if (!options.schedule.enabled) return;
    // Decide for the next step. The session keeps what the analysis reads: the analysed steps of a
    // window (analysed_step: its active steps but the first, when it has more than one). The window
    // opens on an idle GPU after the step before its first analysed one: that step's work (and any
    // that untraced steps queued, the host running steps ahead) would otherwise run under analysed
    // host steps and be counted there. It closes once the GPU has run its last step's work: the
    // window's last launches run after its last host step ends. Two waits per window, not per step.
    const bool read_now = analysed_step(options.schedule, e.global_step);
    const bool read_next = analysed_step(options.schedule, e.global_step + 1);
    if (read_next && !read_now) {
      if (cupti) cupti->drain_device();
      store.gpu_windows.open(clock.from_host(trace::now_ns()));
    } else if (read_now && !read_next) {
      if (cupti) cupti->drain_device();
      store.gpu_windows.close(std::max(clock.from_host(e.end_ns), clock.from_host(trace::now_ns())));
    }
    recording.store(read_next, std::memory_order_relaxed);
    // CUPTI's kinds come on one step before a window (the first launches after cuptiActivityEnable pay
    // for CUPTI's instrumentation) and go off after its last step, once the GPU has run that step's work
    // (CuptiCollector::set_mode drains the device first); a hybrid recording traces whole graph replays
    // between.
    between_windows = !cupti_on_for_next(options.schedule, e.global_step);
    apply_cupti_mode();
  }
  void on_losses(std::int64_t first, const float* losses, std::int64_t count) override {
    host->on_losses(first, losses, count);
  }
  /// CUPTI paused while the engine times candidates (cuDNN's algorithm search): under CUPTI each
  /// kernel and launch takes longer, and profiled runs chose algorithms ~20 % slower on the GPU
  /// than unprofiled ones (bench/profile_cost.sh, TRAINSCOPE_CONV_LOG). The session says so.
  void on_measuring(bool begin) override {
    if (!cupti) return;
    measuring = begin;
    apply_cupti_mode();
    if (begin) {
      measuring_since = trace::now_ns();
      return;
    }
    paused_ns += trace::now_ns() - measuring_since;
    store.set_meta("gpu_activity.paused", "cuDNN algorithm search, " + std::to_string(paused_ns / 1000000) +
                                              " ms: not traced, so that it times kernels as an unprofiled run does");
  }

  void measure_copy_ceiling(int device) {
    std::string why;
    if (const auto bps = prof::measure_copy_ceiling(device, &why))
      store.set_meta("pm_sampling.copy_ceiling_bytes_per_s", std::to_string(static_cast<std::int64_t>(*bps)));
    else
      store.set_meta("pm_sampling.copy_ceiling", "not measured: " + why);
  }
  /// Measured metrics by PM sampling, after CUPTI's activity collection started (its records must
  /// keep arriving while sampling: tests/gpu checks both).
  void start_pm(int device) {
    if (device < 0) {
      store.set_meta("pm_sampling", "no measured metrics: the run is on the CPU");
      return;
    }
    if (!options.parts.pm) {
      store.set_meta("pm_sampling", "no measured metrics: left out (TRAINSCOPE_PROFILE_SKIP=pm)");
      return;
    }
    PmSamplerOptions po;
    po.cuda_device = device;
    po.interval_ns = options.pm_interval_ns;
    po.api = linked_pm_api();
    po.name_thread = [](const char* name) { trace::name_this_thread(name); };
    pm = std::make_unique<PmSampler>(store, start_host, po);
  }

  void run_pump() {
    auto last_write = std::chrono::steady_clock::now();
    std::unique_lock lock(mutex);
    while (!stopping) {
      cv.wait_for(lock, std::chrono::milliseconds(20), [&] { return stopping; });
      lock.unlock();
      host->pump();
      const auto now = std::chrono::steady_clock::now();
      if (options.parts.writer && now - last_write >= options.write_period) {
        writer->write_batch();
        last_write = now;
      }
      lock.lock();
    }
  }
};

Profiler::Profiler(ProfilerOptions options) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.options = std::move(options);
  if (m.options.session_path.empty()) m.options.session_path = default_session_path();
  m.writer = std::make_unique<SessionWriter>(m.options.session_path, m.store);  // throws SessionError
  const int device = m.options.cuda_device;
  m.store.process_rank = m.options.rank;
  // The copy ceiling first, before CUPTI records anything: its copies are not the run's.
  if (device >= 0 && m.options.parts.pm) m.measure_copy_ceiling(device);
  m.host = std::make_unique<HostCollector>(m.store, m.clock, device, m.options.rank);
  if (m.options.schedule.enabled) {
    const bool first_active = analysed_step(m.options.schedule, 1);
    m.recording = first_active;
    if (first_active) m.store.gpu_windows.open(INT64_MIN);
    else m.store.gpu_windows.set_none();
  }
  if (device >= 0 && m.options.parts.cupti) {
    m.cupti = std::make_unique<CuptiCollector>(m.store, m.start_host, m.options.rank, m.options.parts.cupti_kinds);
    m.summary.gpu_status = m.cupti->why();
    m.between_windows = !cupti_on_for_next(m.options.schedule, 0);
    m.apply_cupti_mode();
  } else {
    m.summary.gpu_status = device >= 0 ? "no GPU activity: left out (TRAINSCOPE_PROFILE_SKIP=cupti)"
                                       : "no GPU activity: the run is on the CPU";
  }
  m.store.set_meta("gpu_activity", m.summary.gpu_status.empty() ? "collected (CUPTI)" : m.summary.gpu_status);
  m.start_pm(device);
  // Session ns 0 on the host's steady clock (trace::now_ns): a live viewer computes "now" in
  // session time from it (how far behind the newest shown event is).
  m.store.set_meta("session.start_steady_ns", std::to_string(m.start_host));
  m.store.set_meta("session.start_unix_ns",
                   std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                      std::chrono::system_clock::now().time_since_epoch()).count()));
  m.store.set_meta("session.schedule", m.options.schedule.enabled ? schedule_text(m.options.schedule) : "every step");
  m.store.set_meta("session.trace_mode", trace_mode_text(m.options));
  SamplerOptions so;
  so.period = m.options.parts.samplers ? m.options.sample_period : std::chrono::milliseconds(0);
  so.cuda_device = device;
  m.samplers = std::make_unique<Samplers>(m.store, m.clock, so);
  trace::set_nvtx_enabled(m.options.nvtx && m.options.parts.host);
  trace::set_sink(&m);
  m.pump = std::thread([&m] {
    trace::name_this_thread("session-writer");
    lower_this_thread_priority();
    m.run_pump();
  });
}

Profiler::~Profiler() {
  try {
    stop();
  } catch (...) {
  }
}

void Profiler::set_meta(const std::string& key, const std::string& value) { impl_->store.set_meta(key, value); }

void Profiler::set_hardware(const DeviceInfo& d) {
  EventStore& s = impl_->store;
  s.set_meta("device.kind", device_name(d.device));
  s.set_meta("device.name", d.name);
  s.set_meta("device.ordinal", std::to_string(d.ordinal));
  s.set_meta("device.compute_capability", std::to_string(d.compute_capability_major) + "." +
                                              std::to_string(d.compute_capability_minor));
  s.set_meta("device.multiprocessors", std::to_string(d.multiprocessors));
  s.set_meta("device.total_memory_bytes", std::to_string(d.total_memory_bytes));
  s.set_meta("versions.cuda_driver", std::to_string(d.driver_version));
  s.set_meta("versions.cuda_runtime", std::to_string(d.runtime_version));
  s.set_meta("versions.cudnn", std::to_string(d.cudnn_version));
  s.set_meta("versions.cublas", std::to_string(d.cublas_version));
  s.set_meta("versions.libraries", d.library_versions);
  s.set_meta("versions.trainscope", TRAINSCOPE_VERSION);
  s.set_meta("host.cpu_model", cpu_model());
  s.set_meta("host.cpu_cores", std::to_string(std::thread::hardware_concurrency()));
  utsname u{};
  if (uname(&u) == 0) s.set_meta("host.os", std::string(u.sysname) + " " + u.release + " " + u.machine);
}

void Profiler::set_memory_stats(std::function<MemoryStats()> fn) { impl_->samplers->set_memory_stats(std::move(fn)); }

EpochRecord epoch_record(const EpochResult& e) {
  return {.epoch = e.epoch, .train_loss = e.train_loss, .test_accuracy = e.test_accuracy, .test_loss = e.test_loss,
          .images_per_s = e.images_per_s, .train_ns = static_cast<std::int64_t>(e.train_seconds * 1e9),
          .eval_ns = static_cast<std::int64_t>(e.eval_seconds * 1e9), .loss_scale = e.loss_scale,
          .skipped_steps = e.skipped_steps};
}

EpochResult epoch_result(const EpochRecord& r) {
  return {.epoch = r.epoch, .train_loss = r.train_loss, .test_accuracy = r.test_accuracy, .test_loss = r.test_loss,
          .images_per_s = r.images_per_s, .train_seconds = static_cast<double>(r.train_ns) * 1e-9,
          .eval_seconds = static_cast<double>(r.eval_ns) * 1e-9, .loss_scale = r.loss_scale,
          .skipped_steps = r.skipped_steps, .checkpoint = {}};
}

void Profiler::record_epoch(const EpochResult& e) { impl_->store.append(impl_->store.epochs, epoch_record(e)); }

const EventStore& Profiler::store() const { return impl_->store; }
std::shared_ptr<const EventStore> Profiler::shared_store() const { return impl_->shared; }

ProfilerSummary Profiler::stop() {
  Impl& m = *impl_;
  if (m.stopped) return m.summary;
  m.stopped = true;
  trace::set_sink(nullptr);
  trace::set_nvtx_enabled(false);
  if (m.cupti) m.cupti->stop();
  if (m.pm) m.pm->stop();  // after the activity records: disabling PM sampling may finalize CUPTI
  m.samplers->stop();
  {
    std::lock_guard lock(m.mutex);
    m.stopping = true;
  }
  m.cv.notify_one();
  m.pump.join();
  m.host->flush();  // the last pump: also names threads that never named themselves
  m.store.set_meta("dropped.cupti", std::to_string(m.store.dropped_cupti.load()));
  m.store.set_meta("dropped.host_ranges", std::to_string(m.store.dropped_host_ranges.load()));
  m.writer->close();
  ProfilerSummary& s = m.summary;
  s.path = m.writer->path();
  s.counts = m.store.counts();
  s.events = m.writer->events_written();
  s.file_bytes = session_file_bytes(s.path);
  s.bytes_per_event = s.events ? static_cast<double>(s.file_bytes) / static_cast<double>(s.events) : 0;
  s.steps = m.writer->steps_written();  // what the file holds, not what the run took (a full disk)
  s.steps_taken = static_cast<std::int64_t>(s.counts.steps);
  s.dropped = m.store.dropped();
  s.error = m.writer->error();
  const auto meta = m.store.meta();
  if (auto it = meta.find("pm_sampling"); it != meta.end()) s.pm_status = it->second;
  return s;
}

}  // namespace ts::prof
