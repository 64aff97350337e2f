// Autorun: command-line options into Run settings, the run, stdout lines, screenshots, exit code.
#include "app/gui/autorun.h"

#include <algorithm>
#include <optional>
#include <string>

#include <QAction>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QTimer>
#include <cstdio>

#include "app/gui/live_latency.h"
#include "app/gui/main_window.h"
#include "widgets/main/checkpoints_controller.h"
#include "widgets/model/model_builder.h"
#include "widgets/training/training_charts.h"
#include "runconfig/run_config.h"  // the model presets' names

namespace ts::gui {

namespace {
/// "simple_cnn, vgg_small_bn, tiny_cnn": the presets, from their one list (runconfig).
QString preset_list() {
  QStringList names;
  for (const std::string& n : runconfig::preset_names()) names << QString::fromStdString(n);
  return names.join(", ");
}

/// The options that are knobs of the run configuration, named as runconfig's table names their
/// option ("--batch-size" is batch_size, "--limit-train" images), with the smallest value a number
/// option takes here. Their values reach the Run settings through runconfig::apply_knob.
struct KnobOption {
  const char* knob;
  double min = 0;
};
constexpr KnobOption kKnobOptions[] = {
    {"epochs", 1},    {"batch_size", 1},      {"num_workers", 0}, {"lr", 1e-9},          {"momentum", 0},
    {"seed", 0},      {"images", 0},          {"accumulate", 1},  {"memory_limit_gib", 0}, {"augment"},
    {"sync_every_step"}, {"deterministic"}, {"amp"},          {"optimizer"},
};

/// Option `name` as a number >= min, or nullopt with `error` set.
std::optional<double> number_option(const QCommandLineParser& p, const QString& name, double min, QString& error) {
  bool good = false;
  const double v = p.value(name).toDouble(&good);
  if (good && v >= min) return v;
  error = QString("--%1: '%2' is not a number >= %3").arg(name, p.value(name)).arg(min);
  return std::nullopt;
}

/// The option of a knob without its "--" ("batch-size").
QString option_of(const char* knob) { return QString::fromStdString(runconfig::knob_option(knob).substr(2)); }

/// The value of option `k` as the knob's text, or nullopt (with `error` set) for a bad value: a
/// number >= k.min (a whole one for an integer knob), "true"/"false" for a flag given or not, AMP
/// off (fp32), fp16 or bf16, an optimizer sgd, adam or adamw.
std::optional<std::string> knob_value(const QCommandLineParser& p, const KnobOption& k, QString& error) {
  const runconfig::KnobDef& def = *runconfig::find_knob(k.knob);
  const QString name = option_of(k.knob), v = p.value(name);
  switch (def.type) {
    case runconfig::KnobType::boolean:
      return p.isSet(name) ? "true" : "false";
    case runconfig::KnobType::amp:
      if (v == "off" || v == "fp32" || v == "fp16" || v == "bf16") return amp_mode_name(parse_amp_mode(v.toStdString()));
      error = "--amp: expected off, fp16 or bf16, got '" + v + "'";
      return std::nullopt;
    case runconfig::KnobType::optimizer:
      if (v == "sgd" || v == "adam" || v == "adamw") return v.toStdString();
      error = "--optimizer: expected sgd, adam or adamw, got '" + v + "'";
      return std::nullopt;
    default: {
      const std::optional<double> x = number_option(p, name, k.min, error);
      if (!x) return std::nullopt;
      if (def.type == runconfig::KnobType::integer) return std::to_string(static_cast<long long>(*x));
      return QString::number(*x, 'g', 17).toStdString();  // every digit: stod gives x back
    }
  }
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
      {"no-pin-memory", "Pageable batch buffers (default: pin_memory on for CUDA runs, as in trainscope-run)."},
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
    const std::optional<double> v = number_option(p, name, min, error);
    ok = ok && v;
    return v.value_or(0);
  };
  // The knobs through the run configuration's table; those given on the command line are kept to
  // go over a loaded setup's settings (settings_over_window).
  runconfig::RunConfig c = to_run_config(RunSettings{});
  for (const KnobOption& k : kKnobOptions) {
    const std::optional<std::string> value = knob_value(p, k, error);
    if (!value) {
      ok = false;
      continue;
    }
    runconfig::apply_knob(c, k.knob, *value);
    if (o.given.contains(option_of(k.knob))) o.knobs.emplace_back(k.knob, *value);
  }
  // The default is the runner's (RunConfig's); --no-pin-memory turns it off.
  const std::string pin = p.isSet("no-pin-memory") || !runconfig::RunConfig{}.pin_memory ? "false" : "true";
  runconfig::apply_knob(c, "pin_memory", pin);
  if (o.given.contains("no-pin-memory")) o.knobs.emplace_back("pin_memory", pin);
  RunSettings& s = o.settings;
  s = with_run_config(RunSettings{}, c);
  o.stop_after_s = number("stop-after", 0);
  s.data_dir = o.data;
  s.checkpoint_every = static_cast<int>(number("checkpoint-every", 0));
  s.checkpoint_path = p.value("checkpoint");
  s.resume_path = p.value("resume");
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
  const RunSettings window = window_->runSettings()->settings();
  const RunSettings& o = o_.settings;
  runconfig::RunConfig c = to_run_config(window);
  for (const auto& [knob, value] : o_.knobs) runconfig::apply_knob(c, knob, value);
  RunSettings s = with_run_config(window, c);
  if (o_.given.contains("data")) s.data_dir = o.data_dir;
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
