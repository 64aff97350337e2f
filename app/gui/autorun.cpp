// Autorun: command-line options into Run settings, the run, stdout lines, screenshots, exit code.
#include "app/gui/autorun.h"

#include <algorithm>

#include <QAction>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QTimer>
#include <cstdio>

#include "app/gui/live_latency.h"
#include "app/gui/main_window.h"
#include "widgets/main/checkpoints_controller.h"
#include "widgets/model_builder.h"
#include "widgets/training_charts.h"
#include "runconfig/run_config.h"  // the model presets' names

namespace ts::gui {

namespace {
/// "simple_cnn, vgg_small_bn, tiny_cnn": the presets, from their one list (runconfig).
QString preset_list() {
  QStringList names;
  for (const std::string& n : runconfig::preset_names()) names << QString::fromStdString(n);
  return names.join(", ");
}
}  // namespace

void add_autorun_options(QCommandLineParser& p) {
  p.addOptions({
      {"autorun", "Start a run at once with the settings below (non-interactive use)."},
      {"quit-when-done", "Quit when the run ends (exit code 0 on success)."},
      {"device", "auto, cpu, cuda or cuda:N.", "device", "auto"},
      {"data", "CIFAR-10 binary folder (default: the generated sample set, NOT CIFAR-10).", "dir"},
      {"model", QString("Model preset (%1) or spec JSON file.").arg(preset_list()), "model"},
      {"epochs", "Epochs.", "n", "2"},
      {"batch-size", "Images per step.", "n", "128"},
      {"num-workers", "Data-loader worker threads.", "n", "2"},
      {"lr", "Learning rate.", "lr", "0.001"},
      {"optimizer", "sgd, adam or adamw.", "name", "adam"},
      {"momentum", "SGD momentum.", "m", "0"},
      {"seed", "Seed.", "n", "0"},
      {"limit-train", "Use only the first N training images (0 = all).", "n", "0"},
      {"augment", "Random crop (padding 4) + horizontal flip."},
      {"sync-every-step", "Read the loss every step (as loss.item() does)."},
      {"no-pin-memory", "Pageable batch buffers."},
      {"amp", "Automatic mixed precision: off (fp32), fp16 (dynamic loss scaling) or bf16; CUDA only.", "mode", "off"},
      {"accumulate", "Gradient accumulation: micro-batches per optimizer step (1 = off).", "n", "1"},
      {"deterministic", "Deterministic algorithms and reduction order (same seed, same losses)."},
      {"memory-limit", "Simulate a smaller card: cap the allocator at this many GiB (0 = the real card).", "GiB", "0"},
      {"checkpoint-every", "Write a checkpoint every N epochs (0 = never).", "n", "0"},
      {"checkpoint", "Checkpoint file, or a folder (ending in /) for checkpoint-epochN.tsckpt files.", "path"},
      {"resume", "Continue the run saved in this checkpoint file (same model and seed).", "file"},
      {"stop-after", "Press Stop after this many seconds.", "s", "0"},
      {"screenshots", "Save before/during/after PNGs of the window into this folder.", "dir"},
      {"live-latency", "Measure how long after an event ends (a kernel, a copy, a host range) the timeline "
                       "first paints it; prints median / p95 / max at the end."},
  });
}

bool parse_autorun(const QCommandLineParser& p, AutorunOptions& o, QString& error) {
  o.autorun = p.isSet("autorun");
  for (const QString& name : p.optionNames())
    if (!o.given.contains(name)) o.given << name;
  o.quit_when_done = p.isSet("quit-when-done");
  o.device = p.value("device");
  o.data = p.value("data");
  o.model = p.value("model");
  o.screenshots = p.value("screenshots");
  o.live_latency = p.isSet("live-latency");
  bool ok = true;
  auto number = [&](const char* name, double min) {
    bool good = false;
    const double v = p.value(name).toDouble(&good);
    if (!good || v < min) {
      error = QString("--%1: '%2' is not a number >= %3").arg(name, p.value(name)).arg(min);
      ok = false;
    }
    return v;
  };
  RunSettings& s = o.settings;
  s.epochs = static_cast<int>(number("epochs", 1));
  s.batch_size = static_cast<std::int64_t>(number("batch-size", 1));
  s.num_workers = static_cast<int>(number("num-workers", 0));
  s.lr = number("lr", 1e-9);
  s.momentum = number("momentum", 0);
  s.seed = static_cast<std::uint64_t>(number("seed", 0));
  s.limit_train = static_cast<std::int64_t>(number("limit-train", 0));
  o.stop_after_s = number("stop-after", 0);
  s.augment = p.isSet("augment");
  s.sync_every_step = p.isSet("sync-every-step");
  s.pin_memory = !p.isSet("no-pin-memory");
  s.data_dir = o.data;
  s.accumulate = static_cast<int>(number("accumulate", 1));
  s.deterministic = p.isSet("deterministic");
  s.memory_limit_gib = number("memory-limit", 0);
  s.checkpoint_every = static_cast<int>(number("checkpoint-every", 0));
  s.checkpoint_path = p.value("checkpoint");
  s.resume_path = p.value("resume");
  const QString amp = p.value("amp");
  if (amp == "off" || amp == "fp32") s.amp = AmpMode::off;
  else if (amp == "fp16") s.amp = AmpMode::fp16;
  else if (amp == "bf16") s.amp = AmpMode::bf16;
  else {
    error = "--amp: expected off, fp16 or bf16, got '" + amp + "'";
    ok = false;
  }
  const QString opt = p.value("optimizer");
  if (opt == "sgd") s.optimizer = OptimizerType::sgd;
  else if (opt == "adam") s.optimizer = OptimizerType::adam;
  else if (opt == "adamw") s.optimizer = OptimizerType::adamw;
  else {
    error = "--optimizer: expected sgd, adam or adamw, got '" + opt + "'";
    ok = false;
  }
  if (!QStringList{"auto", "cpu", "cuda"}.contains(o.device) && !o.device.startsWith("cuda:")) {
    error = "--device: expected auto, cpu, cuda or cuda:N, got '" + o.device + "'";
    ok = false;
  }
  return ok;
}

Autorun::Autorun(MainWindow* window, AutorunOptions options) : QObject(window), window_(window), o_(std::move(options)) {}

void save_screenshot(QWidget* window, const QString& dir, const QString& name) {
  if (dir.isEmpty()) return;
  QDir().mkpath(dir);
  const QString path = dir + "/" + name + ".png";
  if (window->grab().save(path)) std::printf("screenshot %s\n", qPrintable(path));
  std::fflush(stdout);
}

void Autorun::grab(const QString& name) { save_screenshot(window_, o_.screenshots, name); }

RunSettings Autorun::settings_over_window() const {
  RunSettings s = window_->runSettings()->settings();
  const RunSettings& o = o_.settings;
  const auto given = [this](const char* name) { return o_.given.contains(name); };
  if (given("epochs")) s.epochs = o.epochs;
  if (given("batch-size")) s.batch_size = o.batch_size;
  if (given("num-workers")) s.num_workers = o.num_workers;
  if (given("lr")) s.lr = o.lr;
  if (given("optimizer")) s.optimizer = o.optimizer;
  if (given("momentum")) s.momentum = o.momentum;
  if (given("seed")) s.seed = o.seed;
  if (given("limit-train")) s.limit_train = o.limit_train;
  if (given("augment")) s.augment = o.augment;
  if (given("sync-every-step")) s.sync_every_step = o.sync_every_step;
  if (given("no-pin-memory")) s.pin_memory = o.pin_memory;
  if (given("data")) s.data_dir = o.data_dir;
  if (given("accumulate")) s.accumulate = o.accumulate;
  if (given("deterministic")) s.deterministic = o.deterministic;
  if (given("memory-limit")) s.memory_limit_gib = o.memory_limit_gib;
  if (given("amp")) s.amp = o.amp;
  s.checkpoint_every = o.checkpoint_every, s.checkpoint_path = o.checkpoint_path, s.resume_path = o.resume_path;
  return s;
}

void Autorun::begin() {
  auto fail = [](const QString& why, int code) {
    std::fprintf(stderr, "trainscope: %s\n", qPrintable(why));
    // Queued: begin() runs before the event loop, where exit() alone would be ignored (a hang).
    QTimer::singleShot(0, QCoreApplication::instance(), [code] { QCoreApplication::exit(code); });
  };
  const auto gpus = list_cuda_devices();
  RunSettings s = o_.on_window_settings ? settings_over_window() : o_.settings;
  if (o_.on_window_settings && !o_.given.contains("device")) {
    // the setup's device, as the window took it
  } else if (o_.device == "cpu" || (o_.device == "auto" && gpus.empty())) {
    s.device = Device::cpu;
  } else {
    s.device = Device::cuda;
    s.cuda_device = o_.device.startsWith("cuda:") ? o_.device.mid(5).toInt() : 0;
    if (s.cuda_device < 0 || s.cuda_device >= static_cast<int>(gpus.size()))
      return fail(QString("--device %1: no such usable GPU (%2 found); use --device cpu").arg(o_.device).arg(gpus.size()), 3);
  }
  if (!o_.model.isEmpty() && !window_->modelBuilder()->loadPreset(o_.model)) {
    const QString err = window_->modelBuilder()->loadFile(o_.model);
    if (!err.isEmpty()) return fail("--model " + o_.model + ": " + err, 2);
  }
  if (const QString why = amp_unavailable_reason(s.device, s.amp); !why.isEmpty())
    return fail(QString("--amp %1: %2").arg(amp_mode_name(s.amp), why), 2);
  window_->runSettings()->setSettings(s);
  o_.settings.epochs = s.epochs;  // what the epoch lines count to (a setup's, when one was loaded)
  if (!window_->runSettings()->dataProblem().isEmpty())
    return fail("--data " + o_.data + ": " + window_->runSettings()->dataProblem(), 2);

  auto* session = window_->session();
  connect(session, &TrainingSession::started, this, [this](const RunInfo& info) {
    std::printf("device %s (%s), %s, %lld training / %lld test images, batch size %lld, num_workers %d\n",
                device_name(info.device.device), info.device.name.c_str(), qPrintable(info.data_description),
                static_cast<long long>(info.train_images), static_cast<long long>(info.test_images),
                static_cast<long long>(info.batch_size), info.num_workers);
    std::fflush(stdout);
    const auto half = std::max<std::int64_t>(1, info.steps_per_epoch * info.epochs / 2);
    connect(window_->session(), &TrainingSession::progress, this, [this, half](const TrainingUpdate& u) {
      if (grabbed_during_ || u.global_step < half) return;
      grabbed_during_ = true;
      QTimer::singleShot(100, this, [this] { grab("during"); });
    });
  });
  connect(session, &TrainingSession::epochFinished, this, [this](const EpochResult& e) {
    std::printf("epoch %d/%d  train_loss %.4f  test_accuracy %.4f  images/s %.0f  epoch_s %.2f", e.epoch,
                o_.settings.epochs, e.train_loss, e.test_accuracy, e.images_per_s, e.train_seconds + e.eval_seconds);
    if (e.skipped_steps > 0 || e.loss_scale != 1.0f)
      std::printf("  loss_scale %g  skipped_steps %lld", static_cast<double>(e.loss_scale), static_cast<long long>(e.skipped_steps));
    if (!e.checkpoint.empty()) std::printf("  checkpoint %s", e.checkpoint.c_str());
    std::printf("\n");
    std::fflush(stdout);
  });
  if (o_.live_latency) latency_ = new LiveLatency(window_);
  connect(session, &TrainingSession::finished, this, [this](const RunOutcome& out) {
    if (latency_) std::printf("%s\n", qPrintable(latency_->summary()));
    if (out.kind == RunOutcome::failed) std::fprintf(stderr, "trainscope: %s — %s\n", qPrintable(out.message), qPrintable(out.fix));
    else std::printf("%s: test_accuracy %.4f (%.2f %% as the window shows), images/s %.0f, %.1f s\n",
                     out.kind == RunOutcome::stopped ? "stopped" : "done", out.summary.test_accuracy,
                     100.0 * out.summary.test_accuracy, out.summary.images_per_s, out.elapsed_s);
    std::fflush(stdout);
    const int code = out.kind == RunOutcome::failed ? 1 : 0;
    QTimer::singleShot(400, this, [this, code] {
      grab("after");
      if (o_.quit_when_done) QCoreApplication::exit(code);
    });
  });
  QTimer::singleShot(o_.screenshots.isEmpty() ? 0 : 800, this, [this, fail] {
    grab("before");
    if (!window_->startAction()->isEnabled()) return fail("cannot start: " + window_->startAction()->toolTip(), 2);
    if (o_.settings.resume_path.isEmpty()) window_->startRun();
    else window_->checkpoints()->resumeFrom(o_.settings.resume_path);
    if (o_.stop_after_s > 0)
      QTimer::singleShot(static_cast<int>(o_.stop_after_s * 1000), window_->stopAction(), &QAction::trigger);
  });
}

}  // namespace ts::gui
