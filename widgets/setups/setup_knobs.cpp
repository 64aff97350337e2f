// RunSettings and ModelSpec <-> a setup's knobs (widgets/setups/setup_knobs.h).
#include "widgets/setups/setup_knobs.h"

#include <QFile>
#include <fmt/core.h>

#include "base/errors.h"
#include "lessons/knob_json.h"

namespace ts::gui {

namespace {

using lessons::Knob;

std::string number(double v) { return fmt::format("{:.10g}", v); }
std::string flag(bool v) { return v ? "true" : "false"; }

const char* const kPresets[] = {"simple_cnn", "vgg_small_bn", "tiny_cnn"};

std::optional<ModelSpec> preset_spec(const QString& name) {
  QFile f(":/models/" + name + ".json");
  if (!f.open(QIODevice::ReadOnly)) return std::nullopt;
  return parse_model_spec(f.readAll().toStdString(), ("preset " + name).toStdString());
}

/// The model a setup's model knob names: a preset, an inline spec, or a spec file on this machine.
ModelSpec model_of(const std::string& value) {
  if (lessons::is_inline_model(value)) return parse_model_spec(value, "the setup's model");
  if (auto p = preset_spec(QString::fromStdString(value))) return *p;
  if (!QFile::exists(QString::fromStdString(value)))
    throw InputError("setup: knobs.model: " + value + " is neither a preset nor a model-spec file on this machine");
  return load_model_spec(value);
}

}  // namespace

bool is_preset_name(const std::string& name) { return preset_spec(QString::fromStdString(name)).has_value(); }

QString preset_of(const ModelSpec& model) {
  const std::string json = to_json(model);
  for (const char* name : kPresets)
    if (auto p = preset_spec(name); p && to_json(*p) == json) return name;
  return {};
}

std::vector<Knob> knobs_from_settings(const RunSettings& s, const ModelSpec& model) {
  const QString preset = preset_of(model);
  const std::string model_value = preset.isEmpty() ? lessons::inline_model_value(model) : preset.toStdString();
  std::vector<Knob> k = {{"model", model_value},
                         {"device", s.device == Device::cuda ? "cuda" : "cpu"},
                         {"batch_size", std::to_string(s.batch_size)},
                         {"num_workers", std::to_string(s.num_workers)},
                         {"pin_memory", flag(s.pin_memory)},
                         {"augment", flag(s.augment)},
                         {"sync_every_step", flag(s.sync_every_step)},
                         {"amp", amp_mode_name(s.amp)},
                         {"accumulate", std::to_string(s.accumulate)},
                         {"images", std::to_string(s.limit_train)},
                         {"epochs", std::to_string(s.epochs)}};
  if (s.memory_limit_gib > 0) k.push_back({"memory_limit_gib", number(s.memory_limit_gib)});
  k.push_back({"lr", number(s.lr)});
  k.push_back({"optimizer", optimizer_name(s.optimizer)});
  if (s.optimizer == OptimizerType::sgd) k.push_back({"momentum", number(s.momentum)});
  if (s.weight_decay >= 0) k.push_back({"weight_decay", number(s.weight_decay)});
  k.push_back({"seed", std::to_string(s.seed)});
  k.push_back({"deterministic", flag(s.deterministic)});
  k.push_back({"cpu_threads", std::to_string(s.cpu_threads)});
  return k;
}

TakenSetup take_setup(const std::vector<Knob>& knobs, RunSettings base, bool have_gpu) {
  TakenSetup t;
  RunSettings& s = base;
  for (const Knob& k : knobs) {
    const std::string& v = k.value;
    if (k.name == "model") t.model = model_of(v);
    else if (k.name == "device") s.device = v == "cuda" ? Device::cuda : Device::cpu;
    else if (k.name == "batch_size") s.batch_size = std::stoll(v);
    else if (k.name == "num_workers") s.num_workers = std::stoi(v);
    else if (k.name == "pin_memory") s.pin_memory = v == "true";
    else if (k.name == "augment") s.augment = v == "true";
    else if (k.name == "sync_every_step") s.sync_every_step = v == "true";
    else if (k.name == "amp") s.amp = parse_amp_mode(v);
    else if (k.name == "accumulate") s.accumulate = std::stoi(v);
    else if (k.name == "images") s.limit_train = std::stoll(v);
    else if (k.name == "epochs") s.epochs = std::stoi(v);
    else if (k.name == "memory_limit_gib") s.memory_limit_gib = std::stod(v);
    else if (k.name == "lr") s.lr = std::stod(v);
    else if (k.name == "optimizer") s.optimizer = parse_optimizer(v);
    else if (k.name == "momentum") s.momentum = std::stod(v);
    else if (k.name == "weight_decay") s.weight_decay = std::stod(v);
    else if (k.name == "seed") s.seed = std::stoull(v);
    else if (k.name == "deterministic") s.deterministic = v == "true";
    else if (k.name == "cpu_threads") s.cpu_threads = std::stoi(v);
    else if (k.name == "log_every") continue;  // how often a run prints: the window shows every step
    else if (k.name == "nesterov") {
      if (v == "true") t.notes << QObject::tr("Nesterov momentum → plain momentum (the window has no Nesterov)");
    } else t.notes << QObject::tr("%1 left to the window").arg(QString::fromStdString(k.name));  // profile_schedule
  }
  if (s.device == Device::cuda && !have_gpu) {
    s.device = Device::cpu;
    t.notes << QObject::tr("device → CPU (no usable GPU here)");
  }
  if (const QString why = amp_unavailable_reason(s.device, s.amp); s.amp != AmpMode::off && !why.isEmpty()) {
    t.notes << QObject::tr("AMP %1 → off (not on this CPU; Run settings says why)").arg(amp_mode_name(s.amp));
    s.amp = AmpMode::off;
  }
  t.settings = s;
  return t;
}

}  // namespace ts::gui
