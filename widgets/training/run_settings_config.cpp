// The window's form <-> the run configuration (runconfig/run_config.h): the one place where
// RunSettings' Qt strings and engine enums meet the knobs that the runner, lessons, setups and the
// session's run.config share.
#include "widgets/training/run_settings.h"

#include "lessons/knob_json.h"

namespace ts::gui {

namespace {

/// The knobs that the form and the run configuration name and type alike, copied `from` -> `to`
/// (either way round); device, optimizer, AMP and the paths are translated by the callers.
template <class From, class To>
void copy_shared_knobs(const From& from, To& to) {
  to.cuda_device = from.cuda_device;
  to.epochs = from.epochs;
  to.batch_size = from.batch_size;
  to.num_workers = from.num_workers;
  to.pin_memory = from.pin_memory;
  to.lr = from.lr;
  to.momentum = from.momentum;
  to.weight_decay = from.weight_decay;
  to.seed = from.seed;
  to.limit_train = from.limit_train;
  to.augment = from.augment;
  to.sync_every_step = from.sync_every_step;
  to.cpu_threads = from.cpu_threads;
  to.accumulate = from.accumulate;
  to.deterministic = from.deterministic;
  to.cuda_graphs = from.cuda_graphs;
  to.memory_limit_gib = from.memory_limit_gib;
  to.checkpoint_every = from.checkpoint_every;
}

}  // namespace

runconfig::RunConfig to_run_config(const RunSettings& s, const ModelSpec& model) {
  runconfig::RunConfig c = to_run_config(s);
  const std::string preset = runconfig::preset_of(model);
  c.model = preset.empty() ? lessons::inline_model_value(model) : preset;
  return c;
}

runconfig::RunConfig to_run_config(const RunSettings& s) {
  runconfig::RunConfig c;
  c.device = device_name(s.device);
  copy_shared_knobs(s, c);
  c.optimizer = optimizer_name(s.optimizer);
  c.log_every = s.device == Device::cuda ? 25 : 1;
  c.amp = amp_mode_name(s.amp);
  c.checkpoint = s.checkpoint_path.toStdString();
  c.resume = s.resume_path.toStdString();
  c.data = s.data_dir.toStdString();
  return c;
}

RunSettings with_run_config(RunSettings s, const runconfig::RunConfig& c) {
  if (c.device == "cuda") s.device = Device::cuda;
  else if (c.device == "cpu") s.device = Device::cpu;
  copy_shared_knobs(c, s);
  s.optimizer = parse_optimizer(c.optimizer);
  s.amp = parse_amp_mode(c.amp);
  s.data_dir = QString::fromStdString(c.data);
  return s;
}

TrainConfig to_train_config(const RunSettings& s, const ModelSpec& model) {
  runconfig::RunConfig c = to_run_config(s, model);
  if (c.checkpoint.empty()) c.checkpoint = default_checkpoint_dir().toStdString();
  return runconfig::to_train_config(c, model, s.device, "trainscope");
}

}  // namespace ts::gui
