// The window's form <-> the run configuration (runconfig/run_config.h): the one place where
// RunSettings' Qt strings and engine enums meet the knobs that the runner, lessons, setups and the
// session's run.config share.
#include "widgets/run_settings.h"

#include "lessons/knob_json.h"

namespace ts::gui {

runconfig::RunConfig to_run_config(const RunSettings& s, const ModelSpec& model) {
  runconfig::RunConfig c;
  const std::string preset = runconfig::preset_of(model);
  c.model = preset.empty() ? lessons::inline_model_value(model) : preset;
  c.device = device_name(s.device);
  c.cuda_device = s.cuda_device;
  c.epochs = s.epochs;
  c.batch_size = s.batch_size;
  c.num_workers = s.num_workers;
  c.pin_memory = s.pin_memory;
  c.lr = s.lr;
  c.optimizer = optimizer_name(s.optimizer);
  c.momentum = s.momentum;
  c.weight_decay = s.weight_decay;
  c.seed = s.seed;
  c.limit_train = s.limit_train;
  c.augment = s.augment;
  c.sync_every_step = s.sync_every_step;
  c.log_every = s.device == Device::cuda ? 25 : 1;
  c.cpu_threads = s.cpu_threads;
  c.amp = amp_mode_name(s.amp);
  c.accumulate = s.accumulate;
  c.deterministic = s.deterministic;
  c.memory_limit_gib = s.memory_limit_gib;
  c.checkpoint_every = s.checkpoint_every;
  c.checkpoint = s.checkpoint_path.toStdString();
  c.resume = s.resume_path.toStdString();
  c.data = s.data_dir.toStdString();
  return c;
}

RunSettings with_run_config(RunSettings s, const runconfig::RunConfig& c) {
  if (c.device == "cuda") s.device = Device::cuda;
  else if (c.device == "cpu") s.device = Device::cpu;
  s.cuda_device = c.cuda_device;
  s.epochs = c.epochs;
  s.batch_size = c.batch_size;
  s.num_workers = c.num_workers;
  s.pin_memory = c.pin_memory;
  s.lr = c.lr;
  s.optimizer = parse_optimizer(c.optimizer);
  s.momentum = c.momentum;
  s.weight_decay = c.weight_decay;
  s.seed = c.seed;
  s.limit_train = c.limit_train;
  s.augment = c.augment;
  s.sync_every_step = c.sync_every_step;
  s.cpu_threads = c.cpu_threads;
  s.amp = parse_amp_mode(c.amp);
  s.accumulate = c.accumulate;
  s.deterministic = c.deterministic;
  s.memory_limit_gib = c.memory_limit_gib;
  s.checkpoint_every = c.checkpoint_every;
  s.data_dir = QString::fromStdString(c.data);
  return s;
}

TrainConfig to_train_config(const RunSettings& s, const ModelSpec& model) {
  runconfig::RunConfig c = to_run_config(s, model);
  if (c.checkpoint.empty()) c.checkpoint = default_checkpoint_dir().toStdString();
  return runconfig::to_train_config(c, model, s.device, "trainscope");
}

}  // namespace ts::gui
