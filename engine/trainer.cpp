// Trainer implementation: the step loop, loss read-back policy, evaluation and throughput.
#include "engine/trainer.h"

#include <chrono>
#include <cmath>

#include "engine/errors.h"
#include "engine/host_trace.h"

namespace ts {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

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

  NetworkOptions opt;
  opt.optimizer = config_.optimizer;
  opt.seed = config_.seed;
  opt.max_batch_size = config_.batch_size;
  opt.cpu_threads = config_.cpu_threads;
  opt.cuda_device = config_.cuda_device;
  opt.allow_tf32 = config_.allow_tf32;
  network_ = make_network(config_.device, config_.model, opt);

  auto alloc = [net = network_.get()](std::size_t bytes, bool pinned) { return net->allocate_host(bytes, pinned); };
  LoaderOptions train_opt;
  train_opt.batch_size = config_.batch_size;
  train_opt.num_workers = config_.num_workers;
  train_opt.shuffle = true;
  train_opt.augment = config_.augment;
  train_opt.pin_memory = config_.pin_memory;
  train_opt.seed = config_.seed;
  train_loader_ = std::make_unique<DataLoader>(data_.train, train_opt, alloc);

  LoaderOptions test_opt = train_opt;
  test_opt.shuffle = false;
  test_opt.augment = false;
  test_opt.batch_size = std::min<std::int64_t>(config_.batch_size, data_.test.count());
  test_loader_ = std::make_unique<DataLoader>(data_.test, test_opt, alloc);
}

Trainer::~Trainer() = default;

void Trainer::report_losses(std::vector<float> losses, int epoch, std::int64_t step, std::int64_t global_step,
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
  if (observer_.on_step) {
    StepReport r;
    r.epoch = epoch;
    r.step = step - back;
    r.steps_in_epoch = train_loader_->batches_per_epoch();
    r.global_step = global_step - back;
    r.losses = std::move(losses);
    r.images_per_s = images_per_s;
    observer_.on_step(r);
  }
  if (!finite)
    throw Error("the loss became " + std::string(std::isnan(bad_loss) ? "NaN" : "infinite") + " at step " +
                std::to_string(global_step - back) + " (epoch " + std::to_string(epoch) +
                "); lower the learning rate (--lr) or use a smaller batch");
}

std::vector<float> Trainer::drain_traced(std::int64_t global_step) {
  trace::ScopedRange range(trace::RangeKind::sync, "loss drain (sync)");
  std::vector<float> losses = network_->drain_step_losses();
  range.close();
  const auto n = static_cast<std::int64_t>(losses.size());
  trace::losses_read(global_step - n + 1, losses.data(), n);
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
      sync_range.close();
      trace::losses_read(global_step, &loss, 1);
      report_losses({loss}, epoch, r.steps, global_step, r.images / seconds_since(t0), loss_sum, loss_count);
    } else if (log_now) {
      report_losses(drain_traced(global_step), epoch, r.steps, global_step, r.images / seconds_since(t0),
                    loss_sum, loss_count);
    }
    step_range.close();
    if (trace::sink())
      trace::step_done({epoch, r.steps, global_step, step_t0, trace::now_ns(), b->size,
                        train_loader_->stats().wait_ns - wait0});
    if (observer_.between_steps) observer_.between_steps();
    if (stop.load(std::memory_order_relaxed)) break;
  }
  auto rest = drain_traced(global_step);  // also waits for the last step
  if (!rest.empty())
    report_losses(std::move(rest), epoch, r.steps, global_step, r.images / seconds_since(t0), loss_sum, loss_count);
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
  trace::name_this_thread("trainer");
  TrainSummary s;
  s.device = network_->device_info();
  std::int64_t global_step = 0, images = 0;
  double train_seconds = 0;
  for (int epoch = 1; epoch <= config_.epochs; ++epoch) {
    EpochResult r = train_epoch(epoch, stop, global_step);
    evaluate(r);
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
  return s;
}

}  // namespace ts
