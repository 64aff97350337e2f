// RunSettings and ModelSpec <-> a setup's knobs (widgets/setups/setup_knobs.h), through the run
// configuration's knob table (runconfig/run_config.h).
#include "widgets/setups/setup_knobs.h"

#include <QFile>

#include "base/errors.h"
#include "lessons/knob_json.h"
#include "runconfig/run_config.h"

namespace ts::gui {

namespace {

using lessons::Knob;

/// The model a setup's model knob names: a preset, an inline spec, or a spec file on this machine.
ModelSpec model_of(const std::string& value) {
  if (!lessons::is_inline_model(value) && !runconfig::is_model_preset(value) && !QFile::exists(QString::fromStdString(value)))
    throw InputError("setup: knobs.model: " + value + " is neither a preset nor a model-spec file on this machine");
  return runconfig::resolve_model(value);
}

}  // namespace

bool is_preset_name(const std::string& name) { return runconfig::is_model_preset(name); }

QString preset_of(const ModelSpec& model) { return QString::fromStdString(runconfig::preset_of(model)); }

std::vector<Knob> knobs_from_settings(const RunSettings& s, const ModelSpec& model) {
  runconfig::RunConfig c = to_run_config(s, model);
  if (s.optimizer != OptimizerType::sgd) c.momentum = 0;  // the form's momentum is SGD's only
  std::vector<Knob> k;
  for (auto& [name, value] : runconfig::knobs_of(c))
    if (name != "log_every") k.push_back({name, value});  // how often the runner prints: not the window's
  return k;
}

TakenSetup take_setup(const std::vector<Knob>& knobs, RunSettings base, bool have_gpu) {
  TakenSetup t;
  runconfig::RunConfig c = to_run_config(base, simple_cnn_spec());
  for (const Knob& k : knobs) {
    if (k.name == "model") t.model = model_of(k.value);
    else if (k.name == "log_every") continue;  // how often a run prints: the window shows every step
    else if (k.name == "nesterov") {
      if (k.value == "true") t.notes << QObject::tr("Nesterov momentum → plain momentum (the window has no Nesterov)");
    } else if (k.name == "profile_schedule") t.notes << QObject::tr("%1 left to the window").arg(QString::fromStdString(k.name));
    else runconfig::apply_knob(c, k.name, k.value);
  }
  RunSettings s = with_run_config(base, c);
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
