// TrainingSession: the worker thread around ts::Trainer and the throttled, queued updates.
#include "widgets/training/training_session.h"

#include <QDir>
#include <QFileInfo>
#include <QThread>

#include "base/errors.h"
#include "engine/memory.h"
#include "engine/synthetic_data.h"
#include "profiling/profiler.h"

namespace ts::gui {

std::pair<QString, QString> explain_error(const std::exception& e) {
  const QString what = QString::fromStdString(e.what());
  if (const auto* oom = dynamic_cast<const OutOfMemoryError*>(&e)) {
    const bool simulated = oom->memory_limit_bytes > 0;
    const QString card = simulated ? QObject::tr("the simulated %1 GiB card")
                                         .arg(QString::fromStdString(memory_limit_gib_text(oom->memory_limit_bytes)))
                                   : QString();
    QString fix;
    if (oom->suggested_batch_size > 0 && oom->suggested_accumulate > 1)
      fix = QObject::tr("In Run settings, use batch size %1 with gradient accumulation %2 (the same effective batch)")
                .arg(oom->suggested_batch_size)
                .arg(oom->suggested_accumulate);
    else if (oom->suggested_batch_size > 0)
      fix = QObject::tr("Lower the batch size in Run settings (%1 should fit)").arg(oom->suggested_batch_size);
    else
      fix = QObject::tr("Lower the batch size in Run settings");
    fix += QObject::tr(", or AMP bf16 (on a GPU), or a smaller model");
    if (simulated) fix += QObject::tr("; or a larger card under Simulate a smaller card (0 = the real card)");
    const QString message = simulated ? QObject::tr("Out of memory on %1: %2").arg(card, what)
                                      : QObject::tr("Out of GPU memory: %1").arg(what);
    return {message, fix + "."};
  }
  if (dynamic_cast<const DeviceError*>(&e))
    return {QObject::tr("The device cannot be used: %1").arg(what),
            QObject::tr("Choose the CPU (or another GPU) under Device in Run settings.")};
  if (dynamic_cast<const ModelSpecError*>(&e))
    return {QObject::tr("The model is invalid: %1").arg(what), QObject::tr("Fix the marked row in the Model dock.")};
  if (dynamic_cast<const InputError*>(&e))
    return {QObject::tr("Bad input: %1").arg(what),
            QObject::tr("Check the dataset folder and the settings in Run settings, then start again.")};
  if (what.contains("loss became"))
    return {QObject::tr("Training diverged: %1").arg(what),
            QObject::tr("Lower the learning rate or the batch size in Run settings, then start again.")};
  return {what, QObject::tr("Change the settings and start again.")};
}

TrainingSession::TrainingSession(QObject* parent) : QObject(parent) {
  qRegisterMetaType<ts::gui::RunInfo>();
  qRegisterMetaType<ts::gui::TrainingUpdate>();
  qRegisterMetaType<ts::gui::RunOutcome>();
  qRegisterMetaType<ts::EpochResult>();
  qRegisterMetaType<std::shared_ptr<const ts::prof::EventStore>>();
}

TrainingSession::~TrainingSession() {
  if (thread_) {
    stop();
    thread_->wait();
    delete thread_;
  }
}

bool TrainingSession::start(const RunSettings& settings, const ModelSpec& model) {
  if (thread_) return false;
  stop_ = false;
  paused_ = false;
  thread_ = QThread::create([this, settings, model] { work(settings, model); });
  thread_->setObjectName("trainer");
  connect(thread_, &QThread::finished, this, [this] {
    thread_->deleteLater();
    thread_ = nullptr;
  });
  thread_->start();
  return true;
}

void TrainingSession::pause() {
  if (!thread_ || paused_) return;
  paused_ = true;
  emit pausedChanged(true);
}

void TrainingSession::resume() {
  if (!paused_) return;
  {
    std::lock_guard lock(pause_mutex_);
    paused_ = false;
  }
  pause_cv_.notify_all();
  emit pausedChanged(false);
}

void TrainingSession::stop() {
  {
    std::lock_guard lock(pause_mutex_);
    stop_ = true;
  }
  pause_cv_.notify_all();
}

void TrainingSession::flush(bool force) {
  if (pending_.losses.empty()) return;  // nothing new
  if (!force && emit_clock_.isValid() && emit_clock_.elapsed() < interval_ms_) return;
  const qint64 now_ms = run_clock_.elapsed();
  pending_.elapsed_s = static_cast<double>(now_ms) * 1e-3;
  // Per interval (steps since the last update), within one epoch: an epoch's first interval holds
  // the evaluation of the one before.
  pending_.step_images_per_s =
      pending_.epoch == rate_epoch_ && pending_.global_step > rate_step_ && now_ms > rate_ms_
          ? static_cast<double>((pending_.global_step - rate_step_) * batch_size_) / (static_cast<double>(now_ms - rate_ms_) * 1e-3)
          : 0;
  rate_epoch_ = pending_.epoch, rate_step_ = pending_.global_step, rate_ms_ = now_ms;
  emit progress(pending_);  // queued to the GUI thread: a copy travels
  pending_.losses.clear();
  pending_.loss_scales.clear();
  emit_clock_.restart();
}

namespace {

Cifar10 load_data(const RunSettings& s, RunInfo& info) {
  if (!s.data_dir.isEmpty()) {
    info.data_description = QObject::tr("CIFAR-10 in %1").arg(s.data_dir);
    return load_cifar10(s.data_dir.toStdString(), s.limit_train);
  }
  const std::string dir = sample_data_dir().toStdString();
  if (!check_cifar10_folder(dir).empty()) write_synthetic_cifar(dir, SyntheticOptions{});
  info.data_description = QObject::tr("TrainScope sample set (generated, NOT CIFAR-10)");
  return load_cifar10(dir, s.limit_train);
}

}  // namespace

std::unique_ptr<prof::Profiler> TrainingSession::startProfiler(const RunSettings& s, const ModelSpec& model,
                                                               RunOutcome& out) {
  if (!s.record_session || s.session_path.isEmpty()) return nullptr;
  try {
    QDir().mkpath(QFileInfo(s.session_path).absolutePath());
    prof::ProfilerOptions po;
    po.session_path = s.session_path.toStdString();
    po.cuda_device = s.device == Device::cuda ? s.cuda_device : -1;
    auto p = std::make_unique<prof::Profiler>(po);
    p->set_meta("run.config", to_train_config(s, model).run_config_json);  // as the checkpoints hold it
    p->set_meta("run.model_spec", to_json(model));
    emit recordingStarted(p->shared_store());
    return p;
  } catch (const std::exception& e) {
    out.session_error = tr("No session recorded: %1").arg(QString::fromStdString(e.what()));
    return nullptr;
  }
}

bool TrainingSession::requestCheckpoint(const QString& path) {
  if (!thread_ || path.isEmpty()) return false;
  std::lock_guard lock(checkpoint_mutex_);
  checkpoint_request_ = path;
  return true;
}

QString TrainingSession::pendingCheckpoint() const {
  std::lock_guard lock(checkpoint_mutex_);
  return checkpoint_request_;
}

void TrainingSession::saveRequested(Trainer& trainer, int epoch) {
  QString path;
  {
    std::lock_guard lock(checkpoint_mutex_);
    path.swap(checkpoint_request_);
  }
  if (path.isEmpty()) return;
  if (stop_.load()) {  // the epoch ended early: its state is no epoch boundary
    emit checkpointFailed(tr("Stopped mid-epoch %1: no checkpoint written to %2").arg(epoch).arg(path));
    return;
  }
  try {
    trainer.save(path.toStdString(), epoch, last_global_step_);
    emit checkpointSaved(path, epoch);
  } catch (const std::exception& e) {
    emit checkpointFailed(QString::fromStdString(e.what()));
  }
}

TrainerObserver TrainingSession::makeObserver(Trainer*& trainer) {
  TrainerObserver obs;
  obs.on_step = [this](const StepReport& r) {
    const auto n = static_cast<std::int64_t>(r.losses.size());
    const bool scaled = r.loss_scales.size() == r.losses.size() && n > 0;
    if (scaled || !pending_.loss_scales.empty()) pending_.loss_scales.resize(pending_.losses.size(), 0.0f);
    for (std::int64_t i = 0; i < n; ++i) {
      const auto k = static_cast<std::size_t>(i);
      pending_.losses.emplace_back(r.global_step - n + 1 + i, r.losses[k]);
      if (scaled) pending_.loss_scales.push_back(r.loss_scales[k]);
    }
    if (!pending_.loss_scales.empty()) pending_.loss_scales.resize(pending_.losses.size(), 0.0f);
    pending_.epoch = r.epoch;
    pending_.step = r.step;
    pending_.steps_in_epoch = r.steps_in_epoch;
    pending_.global_step = r.global_step;
    pending_.images_per_s = r.images_per_s;
    last_global_step_ = r.global_step;
    flush(false);
  };
  obs.on_epoch = [this, &trainer](const EpochResult& e) {
    flush(true);
    if (!e.checkpoint.empty()) emit checkpointSaved(QString::fromStdString(e.checkpoint), e.epoch);
    if (trainer) saveRequested(*trainer, e.epoch);
    if (profiler_) profiler_->record_epoch(e);
    emit epochFinished(e);
  };
  obs.on_message = [this](const std::string& m) {
    if (m.rfind("checkpoint written", 0) != 0) emit engineMessage(QString::fromStdString(m));
  };
  obs.between_steps = [this] {
    if (!paused_.load(std::memory_order_relaxed)) return;
    flush(true);
    std::unique_lock lock(pause_mutex_);
    pause_cv_.wait(lock, [this] { return !paused_ || stop_; });
  };
  return obs;
}

void TrainingSession::work(RunSettings settings, ModelSpec model) {
  run_clock_.start();
  emit_clock_.invalidate();
  pending_ = {};
  last_global_step_ = 0;
  RunOutcome out;
  const std::unique_ptr<prof::Profiler> profiler = startProfiler(settings, model, out);
  profiler_ = profiler.get();
  try {
    RunInfo info;
    const Cifar10 data = load_data(settings, info);
    for (const auto& w : data.warnings) info.warnings << QString::fromStdString(w);
    Trainer* trainer_ptr = nullptr;
    Trainer trainer(to_train_config(settings, model), data, makeObserver(trainer_ptr));
    trainer_ptr = &trainer;
    // The samplers read the network's memory: recording stops before the trainer goes (also on errors).
    struct StopFirst {
      prof::Profiler* p;
      ~StopFirst() {
        try {
          if (p) p->stop();
        } catch (...) {  // the summary after the run says what went wrong
        }
      }
    } stop_profiler_first{profiler.get()};
    if (profiler) {
      profiler->set_hardware(trainer.network().device_info());
      profiler->set_memory_stats([net = &trainer.network()] { return net->memory_stats(); });
    }
    info.device = trainer.network().device_info();
    info.train_images = data.train.count();
    info.test_images = data.test.count();
    info.batch_size = settings.batch_size;
    batch_size_ = settings.batch_size, rate_epoch_ = 0, rate_step_ = 0, rate_ms_ = 0;
    info.steps_per_epoch = (data.train.count() + settings.batch_size - 1) / settings.batch_size;
    info.epochs = settings.epochs;
    info.num_workers = settings.num_workers;
    info.amp = settings.amp;
    info.accumulate = settings.accumulate;
    info.deterministic = settings.deterministic;
    info.memory_limit_bytes = memory_limit_bytes(settings);
    emit started(info);
    out.summary = trainer.run(stop_);
    out.kind = out.summary.interrupted ? RunOutcome::stopped : RunOutcome::completed;
  } catch (const std::exception& e) {
    out.kind = RunOutcome::failed;
    std::tie(out.message, out.fix) = explain_error(e);
    const QString what = QString::fromStdString(e.what());
    if (!settings.resume_path.isEmpty() && what.startsWith(settings.resume_path)) {
      out.message = QObject::tr("Cannot resume: %1").arg(what);
      out.fix = QObject::tr("Choose another checkpoint (Run ▸ Resume from checkpoint…) or Start a fresh run.");
    }
  }
  {
    std::lock_guard lock(checkpoint_mutex_);
    checkpoint_request_.clear();
  }
  flush(true);
  if (profiler) {
    const prof::ProfilerSummary sum = profiler->stop();  // idempotent: the file is closed
    out.session_path = settings.session_path;
    if (!sum.error.empty()) out.session_error = QString::fromStdString(sum.error);
  }
  profiler_ = nullptr;
  out.elapsed_s = static_cast<double>(run_clock_.elapsed()) * 1e-3;
  emit finished(out);
}

}  // namespace ts::gui
