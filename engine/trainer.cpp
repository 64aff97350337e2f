// Trainer implementation: the step loop, loss read-back policy, evaluation and throughput.
#include "engine/trainer.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include "base/crash_report.h"
#include "base/errors.h"
#include "engine/checkpoint.h"
#include "engine/host_trace.h"
#include "engine/memory_fit.h"
#include "engine/pool_fusion.h"

namespace ts {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Refuses a thread count past max_run_threads() before any thread is made.
void check_threads(const char* option, int n) {
  const int cap = max_run_threads();
  if (n > cap)
    throw InputError(std::string(option) + " " + std::to_string(n) + ": at most " + std::to_string(cap) +
                     " on this machine (4 per hardware thread, " + std::to_string(cap / 4) + " here)");
}

/// The optimizer's numbers, checked once for every front end (runner options, lessons, setups, the
/// window): NaN compares false with every bound, so each check is written to let NaN fail.
/// Ranges: lr finite and > 0; momentum and dampening in [0, 1] (torch.optim.SGD's meaningful range);
/// weight decay finite, negative meaning "the optimizer's default" (OptimizerConfig).
void check_optimizer(const OptimizerConfig& c) {
  auto text = [](float v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));  // nan, inf, 1.5
    return std::string(buf);
  };
  if (!(std::isfinite(c.lr) && c.lr > 0)) throw InputError("--lr must be a finite number > 0, got " + text(c.lr));
  if (!(c.momentum >= 0 && c.momentum <= 1))
    throw InputError("--momentum must be a number from 0 to 1, got " + text(c.momentum));
  if (!(c.dampening >= 0 && c.dampening <= 1))
    throw InputError("dampening must be a number from 0 to 1, got " + text(c.dampening));
  if (!std::isfinite(c.weight_decay))
    throw InputError("--weight-decay must be a finite number >= 0, got " + text(c.weight_decay));
}

/// Refuses a checkpoint destination that cannot be written, before the first epoch rather than
/// after it: `path` is a file (its folder is probed) or a folder (existing or ending in '/', made
/// here as checkpoint_file() would). The probe is a file created and removed in the folder, which
/// is what saving does (checkpoint.h: a temporary beside the target, renamed into place); access()
/// would say yes on a read-only mount to root.
void check_checkpoint_destination(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const bool folder = (!path.empty() && path.back() == '/') || fs::is_directory(path, ec);
  fs::path dir = folder ? fs::path(path) : fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  ec.clear();
  if (folder) fs::create_directories(dir, ec);
  if (ec) throw InputError("--checkpoint " + path + ": cannot make the folder: " + ec.message());
  std::string probe = (dir / ".trainscope-checkpoint-probe.XXXXXX").string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0)
    throw InputError("--checkpoint " + path + ": cannot write in the folder " + dir.string() + ": " +
                     std::strerror(errno));
  ::close(fd);
  ::unlink(probe.c_str());
}

}  // namespace

int max_run_threads() {
  const unsigned hw = std::thread::hardware_concurrency();
  return 4 * static_cast<int>(hw == 0 ? 1 : std::min(hw, 1u << 20));
}

Trainer::Trainer(TrainConfig config, const Cifar10& data, TrainerObserver observer)
    : config_(std::move(config)), data_(data), observer_(std::move(observer)) {
  if (config_.epochs <= 0) throw InputError("epochs must be > 0, got " + std::to_string(config_.epochs));
  if (config_.batch_size <= 0) throw InputError("batch size must be > 0, got " + std::to_string(config_.batch_size));
  if (data_.train.count() == 0) throw InputError("the training set is empty");
  if (data_.test.count() == 0) throw InputError("the test set is empty");
  if (config_.batch_size > data_.train.count())
    throw InputError("batch size " + std::to_string(config_.batch_size) + " is larger than the " +
                     std::to_string(data_.train.count()) + " training images");
  if (config_.log_every <= 0) config_.log_every = 100;
  if (config_.accumulate < 1)
    throw InputError("--accumulate must be >= 1 micro-batch per optimizer step, got " + std::to_string(config_.accumulate));
  if (config_.cpu_threads < 0) throw InputError("--cpu-threads must be >= 0, got " + std::to_string(config_.cpu_threads));
  check_threads("--cpu-threads", config_.cpu_threads);
  check_threads("--num-workers", config_.num_workers);
  check_optimizer(config_.optimizer);
  if (config_.checkpoint_every > 0 && config_.checkpoint_every <= config_.epochs)
    check_checkpoint_destination(config_.checkpoint_path);
  if (config_.checkpoint_every < 0)
    throw InputError("--checkpoint-every must be >= 0 epochs, got " + std::to_string(config_.checkpoint_every));

  if (config_.memory_limit_bytes < 0)
    throw InputError("--memory-limit must be >= 0 bytes, got " + std::to_string(config_.memory_limit_bytes));
  if (config_.device == Device::cpu && config_.memory_limit_bytes == 0) check_host_memory_up_front();
  try {
    build();
  } catch (const OutOfMemoryError& e) {
    rethrow_oom(e);
  }
}

void Trainer::build() {
  NetworkOptions opt;
  opt.optimizer = config_.optimizer;
  opt.seed = config_.seed;
  opt.max_batch_size = config_.batch_size;
  opt.planned_batch_sizes = batch_sizes_besides_full();
  opt.cpu_threads = config_.cpu_threads;
  opt.cuda_device = config_.cuda_device;
  opt.allow_tf32 = config_.allow_tf32;
  opt.amp = config_.amp;
  opt.accumulate = config_.accumulate;
  opt.deterministic = config_.deterministic;
  opt.cuda_graphs = config_.cuda_graphs;
  opt.fused_pool = fused_pool_from_env();
  opt.memory_limit_bytes = config_.memory_limit_bytes;
  network_ = make_network(config_.device, config_.model, opt);

  auto alloc = [net = network_.get()](std::size_t bytes, bool pinned) { return net->allocate_host(bytes, pinned); };
  train_loader_ = std::make_unique<DataLoader>(data_.train, loader_options(true), alloc);
  const LoaderOptions test_opt = loader_options(false);
  test_loader_ = std::make_unique<DataLoader>(data_.test, test_opt, alloc);
}

std::vector<std::int64_t> Trainer::batch_sizes_besides_full() const {
  std::vector<std::int64_t> sizes;
  const std::int64_t bs = config_.batch_size;
  if (bs < 1) return sizes;
  if (const std::int64_t last = data_.train.count() % bs) sizes.push_back(last);  // the epoch's short batch
  const std::int64_t test_bs = std::min<std::int64_t>(bs, data_.test.count());
  if (test_bs > 0) {
    sizes.push_back(test_bs);
    if (const std::int64_t last = data_.test.count() % test_bs) sizes.push_back(last);
  }
  return sizes;
}

LoaderOptions Trainer::loader_options(bool train) const {
  LoaderOptions o;
  o.batch_size = train ? config_.batch_size : std::min<std::int64_t>(config_.batch_size, data_.test.count());
  o.num_workers = config_.num_workers;
  o.shuffle = train;
  o.augment = train && config_.augment;
  o.pin_memory = config_.pin_memory;
  o.seed = config_.seed;
  return o;
}

std::int64_t Trainer::loader_ring_bytes_per_sample() const {
  std::int64_t rings = 0;
  for (const bool train : {true, false}) {  // the test loader's batch is at most the batch size
    LoaderOptions lo = loader_options(train);
    lo.batch_size = 1;
    rings += loader_ring_bytes(lo);
  }
  return rings;
}

NetworkOptions Trainer::footprint_options() const {
  NetworkOptions opt;
  opt.optimizer = config_.optimizer;
  opt.seed = config_.seed;
  opt.cpu_threads = config_.cpu_threads;
  opt.accumulate = config_.accumulate;
  return opt;
}

// The CUDA network's plan reports its own footprint (cuda_network.cpp); the CPU backend's OOM at a
// cap gets it here, measured, with the loaders' rings (on the CPU they come from the same allocator).
void Trainer::rethrow_oom(const OutOfMemoryError& e) const {
  if (e.suggested_batch_size > 0 || e.memory_limit_bytes <= 0 || config_.device != Device::cpu) throw e;
  MemoryFootprint f = measure_network_footprint(config_.model, footprint_options());
  if (f.per_sample_bytes <= 0) throw e;  // not measurable: the allocator's message alone
  f.per_sample_bytes += loader_ring_bytes_per_sample();
  const std::int64_t cap = e.memory_limit_bytes, n = config_.batch_size;
  const std::int64_t fits = batch_size_that_fits(f, cap);
  const std::string card = "the simulated " + memory_limit_gib_text(cap) + " GiB card";
  const std::string msg = std::string(e.what()) + ". At batch size " + std::to_string(n) + " the run needs about " +
                          format_bytes(f.per_sample_bytes) + " per sample (" + format_bytes(f.per_sample_bytes * n) +
                          " of activations, their gradients and input batches) plus " + format_bytes(f.fixed_bytes) +
                          " of parameters, gradients, optimizer state and workspaces; " + card + " holds " +
                          format_bytes(cap) + oom_fix_advice(n, config_.accumulate, fits, false, false, "on " + card);
  throw with_oom_advice(e, msg, n, config_.accumulate, fits);
}

void Trainer::check_host_memory_up_front() const {
  const std::int64_t available = host_available_bytes();
  if (available < 0) return;
  const std::int64_t rings = loader_ring_bytes_per_sample();
  const std::int64_t n = config_.batch_size;
  MemoryFootprint lower = footprint_lower_bound(config_.model);
  lower.per_sample_bytes += rings;
  // Past what is free even by the shapes' lower bound: refused without building anything. Far below
  // it: no measurement. In between the footprint is measured on two small networks.
  if (n > (available - lower.fixed_bytes) / lower.per_sample_bytes)
    check_host_memory(lower, n, config_.accumulate, available, true);
  if (lower.bytes(n) * 4 < available) return;
  MemoryFootprint f = measure_network_footprint(config_.model, footprint_options());
  if (f.per_sample_bytes <= 0) f = footprint_lower_bound(config_.model);  // not measurable
  f.per_sample_bytes += rings;
  check_host_memory(f, n, config_.accumulate, available);
}

Trainer::~Trainer() = default;

void Trainer::report_losses(std::vector<float> losses, std::vector<float> scales, int epoch, std::int64_t step, std::int64_t global_step,
                            double images_per_s, double& loss_sum, std::int64_t& loss_count) {
  // The first non-finite loss ends the run (fp32 cannot recover), but it is reported first, with
  // the losses before it, so a front end can mark the step instead of losing it.
  std::size_t bad = losses.size();
  for (std::size_t i = 0; i < losses.size(); ++i) {
    if (!std::isfinite(losses[i])) {
      bad = i;
      break;
    }
    loss_sum += losses[i];
  }
  loss_count += static_cast<std::int64_t>(bad);
  const bool finite = bad == losses.size();
  const std::int64_t back = finite ? 0 : static_cast<std::int64_t>(losses.size() - bad - 1);
  const float bad_loss = finite ? 0.0f : losses[bad];
  if (!finite) losses.resize(bad + 1);
  if (scales.size() > losses.size()) scales.resize(losses.size());
  if (observer_.on_step) {
    StepReport r;
    r.epoch = epoch;
    r.step = step - back;
    r.steps_in_epoch = train_loader_->batches_per_epoch();
    r.global_step = global_step - back;
    r.losses = std::move(losses);
    r.loss_scales = std::move(scales);
    r.images_per_s = images_per_s;
    observer_.on_step(r);
  }
  if (!finite)
    throw Error("the loss became " + std::string(std::isnan(bad_loss) ? "NaN" : "infinite") + " at step " +
                std::to_string(global_step - back) + " (epoch " + std::to_string(epoch) +
                "); lower the learning rate (--lr) or use a smaller batch");
}

std::vector<float> Trainer::drain_traced(std::int64_t global_step, std::vector<float>* scales) {
  trace::ScopedRange range(trace::RangeKind::sync, "loss drain (sync)");
  std::vector<float> losses = network_->drain_step_losses();
  range.close();
  const auto n = static_cast<std::int64_t>(losses.size());
  trace::losses_read(global_step - n + 1, losses.data(), n);
  *scales = network_->drained_loss_scales();
  trace::loss_scales_read(global_step - static_cast<std::int64_t>(scales->size()) + 1, scales->data(),
                          static_cast<std::int64_t>(scales->size()));
  return losses;
}

EpochResult Trainer::train_epoch(int epoch, const std::atomic<bool>& stop, std::int64_t& global_step) {
  EpochResult r;
  r.epoch = epoch;
  const auto wait_before = train_loader_->stats().wait_ns;
  train_loader_->start_epoch(epoch - 1);
  double loss_sum = 0;
  std::int64_t loss_count = 0;
  const auto t0 = Clock::now();
  for (;;) {
    // Host trace: the step range spans data wait, train_step and any loss read-back (sync).
    trace::set_current_step(global_step + 1);
    trace::ScopedRange step_range(trace::RangeKind::step, "step");
    const std::int64_t step_t0 = trace::now_ns(), wait0 = train_loader_->stats().wait_ns;
    trace::ScopedRange wait_range(trace::RangeKind::data_wait, "data wait");
    const Batch* b = train_loader_->next();
    wait_range.close();
    if (!b) {
      step_range.cancel();
      break;
    }
    network_->train_step(*b);
    ++r.steps;
    ++global_step;
    r.images += b->size;
    const bool log_now = r.steps % config_.log_every == 0;
    if (config_.sync_every_step) {
      trace::ScopedRange sync_range(trace::RangeKind::sync, "loss read (sync)");
      const float loss = network_->last_loss();  // a sync each step, as the seed's loss.item()
      network_->drain_step_losses();             // already complete: no further wait
      std::vector<float> scales = network_->drained_loss_scales();
      sync_range.close();
      trace::losses_read(global_step, &loss, 1);
      trace::loss_scales_read(global_step, scales.data(), static_cast<std::int64_t>(scales.size()));
      report_losses({loss}, std::move(scales), epoch, r.steps, global_step, r.images / seconds_since(t0), loss_sum, loss_count);
    } else if (log_now) {
      std::vector<float> scales;
      auto losses = drain_traced(global_step, &scales);
      report_losses(std::move(losses), std::move(scales), epoch, r.steps, global_step, r.images / seconds_since(t0),
                    loss_sum, loss_count);
    }
    step_range.close();
    set_crash_step(global_step);  // a crash report says which step the run had reached (base/crash_report.h)
    if (trace::sink())
      trace::step_done({epoch, r.steps, global_step, step_t0, trace::now_ns(), b->size,
                        train_loader_->stats().wait_ns - wait0});
    if (observer_.between_steps) observer_.between_steps();
    if (stop.load(std::memory_order_relaxed)) break;
  }
  network_->flush_accumulation();  // micro-batches left at the end of the epoch make one update
  std::vector<float> rest_scales;
  auto rest = drain_traced(global_step, &rest_scales);  // also waits for the last step
  if (!rest.empty())
    report_losses(std::move(rest), std::move(rest_scales), epoch, r.steps, global_step, r.images / seconds_since(t0), loss_sum, loss_count);
  r.train_seconds = seconds_since(t0);
  r.images_per_s = r.train_seconds > 0 ? r.images / r.train_seconds : 0;
  r.train_loss = loss_count ? loss_sum / static_cast<double>(loss_count) : 0;
  r.data_wait_ns = train_loader_->stats().wait_ns - wait_before;
  return r;
}

void Trainer::evaluate(EpochResult& r) {
  trace::ScopedRange range(trace::RangeKind::eval, "evaluate");
  const auto t0 = Clock::now();
  test_loader_->start_epoch(0);
  network_->begin_eval();
  while (const Batch* b = test_loader_->next()) network_->eval_batch(*b);
  const EvalResult e = network_->end_eval();
  r.test_accuracy = e.total ? static_cast<double>(e.correct) / static_cast<double>(e.total) : 0;
  r.test_loss = e.total ? e.loss_sum / static_cast<double>(e.total) : 0;
  r.eval_seconds = seconds_since(t0);
}

TrainSummary Trainer::run(const std::atomic<bool>& stop) {
  try {
    return run_epochs(stop);
  } catch (const OutOfMemoryError& e) {  // the CPU backend creates primitives at a new batch size's first step
    rethrow_oom(e);
  }
}

TrainSummary Trainer::run_epochs(const std::atomic<bool>& stop) {
  trace::name_this_thread("trainer");
  TrainSummary s;
  s.device = network_->device_info();
  std::int64_t global_step = 0, images = 0;
  double train_seconds = 0;
  const int done = config_.resume_path.empty() ? 0 : resume(global_step);
  s.first_epoch = done + 1;
  for (int epoch = done + 1; epoch <= config_.epochs; ++epoch) {
    EpochResult r = train_epoch(epoch, stop, global_step);
    evaluate(r);
    const TrainingCounters c = network_->counters();  // one sync per epoch
    r.loss_scale = c.loss_scale;
    r.skipped_steps = c.skipped_steps;
    if (config_.checkpoint_every > 0 && epoch % config_.checkpoint_every == 0 && !stop.load()) {
      r.checkpoint = checkpoint_file(epoch);
      save(r.checkpoint, epoch, global_step);
    }
    images += r.images;
    train_seconds += r.train_seconds;
    s.epochs.push_back(r);
    if (observer_.on_epoch) observer_.on_epoch(r);
    if (stop.load()) {
      s.interrupted = true;
      break;
    }
  }
  s.images_per_s = train_seconds > 0 ? images / train_seconds : 0;
  if (!s.epochs.empty()) {
    s.train_loss = s.epochs.back().train_loss;
    s.test_accuracy = s.epochs.back().test_accuracy;
  }
  s.memory = network_->memory_stats();
  s.counters = network_->counters();
  return s;
}

std::string Trainer::checkpoint_file(int epoch) const {
  namespace fs = std::filesystem;
  const std::string& p = config_.checkpoint_path;
  std::error_code ec;
  if ((!p.empty() && p.back() == '/') || fs::is_directory(p, ec)) {
    fs::create_directories(p, ec);
    return (fs::path(p) / ("checkpoint-epoch" + std::to_string(epoch) + ".tsckpt")).string();
  }
  return p;
}

void Trainer::save(const std::string& path, int epochs_done, std::int64_t global_step) {
  trace::ScopedRange range(trace::RangeKind::other, "checkpoint");
  const TrainingCounters c = network_->counters();
  TrainingState st;
  st.run_config_json = config_.run_config_json;
  st.model_spec_json = to_json(config_.model);
  st.epochs_done = epochs_done;
  st.global_step = global_step;
  st.optimizer_step = c.optimizer_steps;
  st.seed = config_.seed;
  st.loss_scale = c.loss_scale;
  st.scaler_growth_tracker = c.growth_tracker;
  st.scaler_skipped_steps = c.skipped_steps;
  st.parameters = network_->parameters();
  st.buffers = network_->buffers();
  st.optimizer_state = network_->optimizer_state();
  save_checkpoint(path, st);
  if (observer_.on_message) observer_.on_message("checkpoint written: " + path);
}

int Trainer::resume(std::int64_t& global_step) {
  const std::string& path = config_.resume_path;
  TrainingState st = load_checkpoint(path);  // InputError naming the file for a bad one
  if (st.model_spec_json != to_json(config_.model))
    throw InputError(path + ": the checkpoint was written for another model (" +
                     parse_model_spec(st.model_spec_json, path).name + "); resume with the same --model");
  if (st.seed != config_.seed)
    throw InputError(path + ": the checkpoint's seed is " + std::to_string(st.seed) + " but --seed is " +
                     std::to_string(config_.seed) + "; resume with the same seed to continue the same run");
  if (st.epochs_done >= config_.epochs)
    throw InputError(path + ": the checkpoint already completed " + std::to_string(st.epochs_done) +
                     " epochs; ask for more with --epochs");
  std::vector<NamedTensor> values = std::move(st.parameters);
  values.insert(values.end(), st.buffers.begin(), st.buffers.end());
  try {  // the network's shape and name checks know the tensor, not the file it came from
    network_->set_parameters(values);
    network_->set_optimizer_state(st.optimizer_state);
  } catch (const InputError& e) {
    throw InputError(path + ": " + e.what());
  }
  network_->restore_counters({.train_steps = st.global_step, .optimizer_steps = st.optimizer_step,
                              .loss_scale = st.loss_scale, .growth_tracker = st.scaler_growth_tracker,
                              .skipped_steps = st.scaler_skipped_steps});
  global_step = st.global_step;
  if (observer_.on_message)
    observer_.on_message("resumed from " + path + " after epoch " + std::to_string(st.epochs_done) + " (step " +
                         std::to_string(st.global_step) + ")");
  return static_cast<int>(st.epochs_done);
}

}  // namespace ts
