// The injection library's recording of one process: the event store, the session file (written by
// the library's own writer thread every second, WAL: a killed program keeps all but the last
// second), the CUPTI record parser and the NVTX range builder. Knows nothing of how CUPTI is
// hooked (inject_cupti.cpp) or of NVTX's entry points (inject_entry.cpp), so the whole
// record-to-session path runs in tests with hand-made CUPTI records and NVTX events.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "profiling/cupti/cupti_parse.h"
#include "profiling/event_store.h"
#include "profiling/inject/inject_config.h"
#include "profiling/inject/py_stacks.h"
#include "profiling/inject/range_builder.h"
#include "profiling/inject/sampler.h"
#include "profiling/session/session_file.h"

namespace ts::prof::inject {

/// Blocks every signal on the calling thread (the library's own threads call it first).
void block_signals();

/// The verdicts a mode cannot give, one line (meta inject.unavailable; docs/profile-a-program.md).
std::string unavailable_verdicts(const std::vector<std::string>& kinds);

class Recorder {
 public:
  /// Opens the session file (throws SessionError(io) when it cannot be created) and writes the
  /// first metadata. `start_host_ns`: steady_clock ns of session time 0.
  Recorder(const InjectConfig& config, std::int64_t start_host_ns);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  const InjectConfig& config() const { return config_; }
  EventStore& store() { return store_; }
  RangeQueue& ranges() { return ranges_; }
  /// The Python insight's frames, stacks and stack samples (any thread appends).
  PyStackQueue& python() { return python_; }
  std::int64_t start_host_ns() const { return start_host_ns_; }

  /// GPU side: the CUPTI clock offset (CUPTI timestamp - steady ns, measured once at start) and
  /// the runtime API names; call before the first buffer.
  void set_gpu(std::int64_t gpu_offset_ns, CuptiParser::ApiNameFn api_name);
  /// Any thread (CUPTI's): a completed activity buffer of `valid` bytes, parsed later by the writer
  /// thread with `next`, then handed to `release` (which may be null: free()).
  void buffer_completed(std::uint8_t* buffer, std::size_t valid, CuptiParser::NextFn next);
  using ReleaseFn = void (*)(std::uint8_t* buffer, std::size_t valid);  // valid: the bytes CUPTI filled
  void set_release(ReleaseFn f) { release_ = f; }
  /// Whether host syncs arrive with their thread (runtime records or SYNC_CALLS); when not, CUPTI's
  /// SYNCHRONIZATION records become sync ranges of the step thread (sync_ranges). Any thread.
  void set_syncs_have_threads(bool yes) { syncs_have_threads_.store(yes); }

  /// The writer thread's work, also callable directly (tests): parse queued buffers, build NVTX
  /// ranges and steps, sync records as host sync ranges when no runtime records are collected,
  /// the one-second windows, metadata, then one batch into the file. `now_host_ns`: steady ns.
  void flush(std::int64_t now_host_ns);
  /// Starts the writer thread (flush() every `period_ms`, or sooner after wake()) and the samplers'
  /// (every config().sample_ms; none when it is 0).
  void start_thread(int period_ms = 1000, std::function<void()> before_flush = {});
  /// The CUDA ordinal of the program's first context: NVML's series sample it (any thread).
  void set_device(int ordinal) { sampler_->set_device(ordinal); }
  /// Async-signal-safe: asks the writer thread for a flush now (a pipe write).
  void wake();
  /// Stops the thread, flushes and closes the file (meta inject.status = `status`); idempotent.
  /// `before_close` (may be empty) runs before the last flush (CUPTI's forced flush).
  void finish(const std::string& status, const std::function<void()>& before_close = {});
  /// The session file's path and, when writing failed, why (one line).
  const std::string& path() const { return config_.session; }
  std::string error() const;

 private:
  std::string gpu_gap() const;
  void run(int period_ms);
  void sync_ranges();
  InjectConfig config_;
  std::int64_t start_host_ns_;
  EventStore store_;
  std::unique_ptr<SessionRecorder> writer_;
  std::unique_ptr<CuptiParser> parser_;
  RangeQueue ranges_;
  PyStackQueue python_;
  std::unique_ptr<RangeBuilder> builder_;
  std::unique_ptr<Sampler> sampler_;
  std::vector<RangeEvent> drained_;
  std::mutex buffers_mutex_;
  std::deque<std::pair<std::uint8_t*, std::size_t>> buffers_;
  CuptiParser::NextFn next_ = nullptr;
  ReleaseFn release_ = nullptr;
  std::size_t syncs_done_ = 0;
  std::uint32_t step_thread_meta_ = 0;  // meta steps.thread as last written
  std::atomic<bool> syncs_have_threads_{false};  // from the kinds asked for, then what CUPTI enabled
  std::mutex flush_mutex_;  // flush() from the thread and from finish()
  std::thread thread_;
  std::function<void()> before_flush_;
  int wake_fd_[2] = {-1, -1};
  std::atomic<bool> stopping_{false}, finished_{false};
};

}  // namespace ts::prof::inject
