// Recorder (see recorder.h).
#include "profiling/inject/recorder.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "engine/host_trace.h"

namespace ts::prof::inject {
namespace {

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string join(const std::vector<std::string>& v, const char* sep = ",") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

bool has(const std::vector<std::string>& v, const char* k) {
  for (const auto& x : v)
    if (x == k) return true;
  return false;
}

}  // namespace

std::string unavailable_verdicts(const std::vector<std::string>& kinds) {
  if (kinds.empty())
    return "every GPU verdict (no CUPTI activity: only NVTX ranges and steps are recorded)";
  std::vector<std::string> s;
  if (!has(kinds, "RUNTIME"))
    s.push_back("the launch calls (launch_bound takes the launch cost from the gaps between kernels; idle time while "
                "the next op was already queued is not told apart from the host's), the runtime share of the step");
  if (!has(kinds, "CONCURRENT_KERNEL")) s.push_back("every kernel-based verdict");
  if (!has(kinds, "MEMCPY")) s.push_back("pageable copies");
  if (!has(kinds, "RUNTIME") && !has(kinds, "SYNC_CALLS") && !has(kinds, "RUNTIME_SYNC") && !has(kinds, "SYNCHRONIZATION"))
    s.push_back("sync_bound (no synchronisation is recorded)");
  if (!has(kinds, "MEMORY2")) s.push_back("the cudaMalloc curve of the memory graph (device memory comes from NVML samples)");
  if (!has(kinds, "MEMSET")) s.push_back("memsets on the timeline");
  return join(s, "; ");
}

Recorder::Recorder(const InjectConfig& config, std::int64_t start_host_ns)
    : config_(config), start_host_ns_(start_host_ns) {
  store_.process_rank = std::max(config_.rank, 0);
  writer_ = std::make_unique<SessionRecorder>(config_.session, store_);  // throws SessionError(io)
  const SessionClock clock(start_host_ns, 0);
  StepRangePattern pattern;  // a bad TRAINSCOPE_STEP_RANGE (set by hand: the runner checks its own) is no failure
  try {
    pattern = StepRangePattern(config_.step_range);
  } catch (const std::exception& e) {
    config_.warnings.push_back(std::string(e.what()) + "; using the default pattern");
  }
  builder_ = std::make_unique<RangeBuilder>(store_, clock, pattern, store_.process_rank);
  parser_ = std::make_unique<CuptiParser>(store_, clock, store_.process_rank, nullptr);
  sampler_ = std::make_unique<Sampler>(store_, clock);
  syncs_have_threads_ = has(config_.kinds, "RUNTIME") || has(config_.kinds, "RUNTIME_SYNC") || has(config_.kinds, "SYNC_CALLS");
  store_.set_meta("session.source", "injected (trainscope-run -- PROGRAM; profiling/inject)");
  store_.set_meta("session.start_steady_ns", std::to_string(start_host_ns));
  store_.set_meta("session.start_unix_ns",
                  std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::system_clock::now().time_since_epoch()).count()));
  store_.set_meta("inject.mode", mode_name(config_.mode));
  store_.set_meta("inject.kinds", join(config_.kinds));
  store_.set_meta("inject.flush_ms", std::to_string(config_.flush_ms));
  store_.set_meta("inject.buffer_kb", std::to_string(config_.buffer_bytes >> 10));
  store_.set_meta("inject.unavailable", unavailable_verdicts(config_.kinds));
  store_.set_meta("inject.pid", std::to_string(getpid()));
  store_.set_meta("inject.status", "recording (a file left in this state: the program was killed)");
  store_.set_meta("steps.rule", builder_->rule_text());
  store_.set_meta("versions.trainscope", TRAINSCOPE_VERSION);
  if (config_.rank >= 0) {
    store_.set_meta("distributed.rank", std::to_string(config_.rank));
    store_.set_meta("distributed.rank_source", config_.rank_source);
  }
  if (config_.world_size > 0) store_.set_meta("distributed.world_size", std::to_string(config_.world_size));
  if (!config_.run_id.empty()) store_.set_meta("distributed.run_id", config_.run_id);
  if (config_.root_pid >= 0) {  // the recording: ranks of one trainscope-run on one host share it
    store_.set_meta("inject.root_pid", std::to_string(config_.root_pid));
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0) store_.set_meta("inject.host", host);
  }
  for (std::size_t i = 0; i < config_.warnings.size(); ++i)
    store_.set_meta("inject.warning." + std::to_string(i + 1), config_.warnings[i]);
  if (pipe2(wake_fd_, O_CLOEXEC | O_NONBLOCK) != 0) wake_fd_[0] = wake_fd_[1] = -1;
  writer_->write_batch();
}

Recorder::~Recorder() {
  finish("closed");
  for (int fd : wake_fd_)
    if (fd >= 0) close(fd);
}

void Recorder::set_gpu(std::int64_t gpu_offset_ns, CuptiParser::ApiNameFn api_name) {
  std::lock_guard lock(flush_mutex_);
  const SessionClock clock(start_host_ns_, gpu_offset_ns);
  parser_ = std::make_unique<CuptiParser>(store_, clock, store_.process_rank, std::move(api_name));
  store_.set_meta("clock.gpu_offset_ns", std::to_string(gpu_offset_ns));
}

void Recorder::buffer_completed(std::uint8_t* buffer, std::size_t valid, CuptiParser::NextFn next) {
  std::lock_guard lock(buffers_mutex_);
  next_ = next;
  buffers_.emplace_back(buffer, valid);
}

/// Without runtime records, a host-side synchronisation (event, stream or context sync: the wait
/// behind loss.item()) is known only from CUPTI's SYNCHRONIZATION records, which name no thread:
/// they become sync ranges of the thread that runs the steps (PyTorch trains on one thread), so the
/// analysis sees the wait. Stream-wait-event records (type 2) block no host thread.
void Recorder::sync_ranges() {
  const std::size_t n = store_.syncs.size();
  if (syncs_have_threads_.load()) {
    syncs_done_ = n;
    return;
  }
  const std::uint32_t tid = builder_->step_thread() ? builder_->step_thread() : static_cast<std::uint32_t>(getpid());
  for (; syncs_done_ < n; ++syncs_done_) {
    const SyncRecord& s = store_.syncs[syncs_done_];
    if (s.type == 2 || s.end <= s.start) continue;
    HostRangeRecord r;
    r.start = s.start, r.end = s.end, r.device = -1, r.rank = store_.process_rank.load(), r.thread = tid;
    r.kind = static_cast<std::uint8_t>(trace::RangeKind::sync);
    r.name = store_.strings.intern(s.type == 1 ? "cudaEventSynchronize" : s.type == 3 ? "cudaStreamSynchronize"
                                                                                      : "cudaDeviceSynchronize");
    store_.append(store_.host_ranges, r);
  }
}

void Recorder::flush(std::int64_t now_host_ns) {
  std::lock_guard lock(flush_mutex_);
  std::deque<std::pair<std::uint8_t*, std::size_t>> got;
  CuptiParser::NextFn next = nullptr;
  {
    std::lock_guard l(buffers_mutex_);
    got.swap(buffers_);
    next = next_;
  }
  for (auto& [buf, valid] : got) {
    if (next) parser_->parse_buffer(buf, valid, next);
    if (release_) release_(buf, valid);
    else std::free(buf);
  }
  drained_.clear();
  ranges_.drain(drained_);
  for (const RangeEvent& e : drained_) builder_->add(e);
  if (stopping_.load()) builder_->finish();  // the last flush: the step kept back for trailing syncs too
  python_.drain(store_, SessionClock(start_host_ns_, 0));
  if (const std::int64_t n = python_.samples()) {
    store_.set_meta("python.samples", std::to_string(n));
    if (const std::int64_t lost = python_.dropped()) store_.set_meta("python.dropped_samples", std::to_string(lost));
  }
  sync_ranges();
  builder_->tick(now_host_ns - start_host_ns_);
  if (builder_->take_windows_dropped()) writer_->drop_steps_in_next_batch();
  store_.dropped_host_ranges = ranges_.dropped();
  store_.set_meta("steps.rule", builder_->rule_text());
  if (builder_->step_thread() != 0 && builder_->step_thread() != step_thread_meta_)
    step_thread_meta_ = builder_->step_thread(), store_.set_meta("steps.thread", std::to_string(step_thread_meta_));
  if (!builder_->note().empty()) store_.set_meta("steps.note", builder_->note());
  if (builder_->unmatched()) store_.set_meta("nvtx.unmatched_pops", std::to_string(builder_->unmatched()));
  writer_->write_batch();
}

void Recorder::start_thread(int period_ms, std::function<void()> before_flush) {
  before_flush_ = std::move(before_flush);
  thread_ = std::thread([this, period_ms] { run(period_ms); });
  if (config_.sample_ms > 0) sampler_->start(config_.sample_ms);
  else store_.set_meta("samplers", "off (TRAINSCOPE_INJECT_SAMPLE_MS=0)");
}

void block_signals() {
  // The program's signals are the program's: none is ever delivered to the library's threads.
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
}

void Recorder::run(int period_ms) {
  block_signals();
  pthread_setname_np(pthread_self(), "trainscope-rec");
  while (!stopping_.load()) {
    if (wake_fd_[0] >= 0) {
      pollfd p{wake_fd_[0], POLLIN, 0};
      poll(&p, 1, period_ms);
      char buf[64];
      while (read(wake_fd_[0], buf, sizeof buf) > 0) {
      }
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(period_ms));
    }
    if (stopping_.load()) break;
    if (before_flush_) before_flush_();
    flush(steady_ns());
  }
}

void Recorder::wake() {
  if (wake_fd_[1] >= 0) {
    const char c = 1;
    [[maybe_unused]] const auto n = write(wake_fd_[1], &c, 1);
  }
}

void Recorder::finish(const std::string& status, const std::function<void()>& before_close) {
  if (finished_.exchange(true)) return;
  stopping_.store(true);
  wake();
  if (thread_.joinable()) {
    if (thread_.get_id() == std::this_thread::get_id()) thread_.detach();  // finish() from the writer thread
    else thread_.join();
  }
  sampler_->stop();
  if (before_close) before_close();
  const std::int64_t open = builder_ ? builder_->open_ranges() : 0;
  if (open) store_.set_meta("nvtx.open_at_exit", std::to_string(open));
  store_.set_meta("inject.status", status);
  flush(steady_ns());
  if (const std::string gap = gpu_gap(); !gap.empty()) store_.set_meta("inject.gpu_stopped", gap);
  writer_->close();
}

/// GPU records that stopped long before the program's steps did: another CUPTI client (torch.profiler's
/// Kineto registers its own buffer callbacks when it starts, and disables its kinds when it stops)
/// took the activity buffers. "" when the kernels ran until the end.
std::string Recorder::gpu_gap() const {
  const std::size_t nk = store_.kernels.size(), ns = store_.steps.size();
  if (nk == 0 || ns == 0) return {};
  std::int64_t last_kernel = 0;
  for (std::size_t i = nk > 256 ? nk - 256 : 0; i < nk; ++i) last_kernel = std::max(last_kernel, store_.kernels[i].end);
  const std::int64_t last_step = store_.steps[ns - 1].end;
  constexpr std::int64_t kGapNs = 2'000'000'000;
  if (last_step - last_kernel < kGapNs) return {};
  return "GPU records stopped at " + std::to_string(last_kernel / 1'000'000) + " ms while steps went on until " +
         std::to_string(last_step / 1'000'000) +
         " ms: another CUPTI client (torch.profiler?) took CUPTI's activity buffers; use --inject-mode nvtx beside it";
}

std::string Recorder::error() const { return writer_ ? writer_->error() : std::string(); }

}  // namespace ts::prof::inject
