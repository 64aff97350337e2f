// The knob table, knob <-> RunConfig, the model presets and the engine's TrainConfig
// (runconfig/run_config.h). run.config JSON: run_config_json.cpp.
#include "runconfig/run_config.h"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <type_traits>

#include "base/errors.h"
#include "base/printable.h"
#include "engine/memory.h"
#include "model_presets.h"

namespace ts::runconfig {

namespace {

/// A number as a knob's text: up to 10 significant digits (0.001, 1e-06).
std::string number(double v) { return fmt::format("{:.10g}", v); }
/// A number the engine keeps as a float (lr, momentum, weight decay): its 7 significant digits,
/// so 0.001 stays 0.001 rather than 0.0010000000474974514.
std::string float_number(double v) { return number(std::stod(fmt::format("{:.7g}", static_cast<float>(v)))); }
std::string flag(bool v) { return v ? "true" : "false"; }

template <auto M>
void set_integer(RunConfig& c, const std::string& v) {
  using T = std::remove_reference_t<decltype(c.*M)>;
  c.*M = std::is_unsigned_v<T> ? static_cast<T>(std::stoull(v)) : static_cast<T>(std::stoll(v));
}
template <auto M>
std::string get_integer(const RunConfig& c) { return std::to_string(c.*M); }
template <auto M>
void set_flag(RunConfig& c, const std::string& v) { c.*M = v == "true"; }
template <auto M>
std::string get_flag(const RunConfig& c) { return flag(c.*M); }
template <auto M>
void set_number(RunConfig& c, const std::string& v) { c.*M = std::stod(v); }
template <auto M>
std::string get_number(const RunConfig& c) { return number(c.*M); }
template <auto M>
std::string get_float(const RunConfig& c) { return float_number(c.*M); }
template <auto M>
void set_text(RunConfig& c, const std::string& v) { c.*M = v; }
template <auto M>
std::string get_text(const RunConfig& c) { return c.*M; }

bool never(const RunConfig&) { return false; }

using K = KnobType;
using C = RunConfig;

/// The knobs, as trainscope-run's options name them: `images` is --limit-train, `memory_limit_gib`
/// is --memory-limit. Order: docs/lessons.md's table (and a saved setup's). Ranges: the window's
/// Run settings form's, which are within trainscope-run's checks: a setup or lesson either reader
/// takes, both take. nesterov is read from a setup but not written into one (as before).
constexpr KnobDef kKnobs[] = {
    {"model", "--model", K::model, 0, 0, false, set_text<&C::model>, get_text<&C::model>},
    {"device", "--device", K::device, 0, 0, false, set_text<&C::device>, get_text<&C::device>,
     [](const C& c) { return c.device != "auto"; }},
    {"batch_size", "--batch-size", K::integer, 1, 65536, false, set_integer<&C::batch_size>, get_integer<&C::batch_size>},
    {"num_workers", "--num-workers", K::integer, 0, 64, false, set_integer<&C::num_workers>, get_integer<&C::num_workers>},
    {"pin_memory", "--pin-memory", K::boolean, 0, 0, false, set_flag<&C::pin_memory>, get_flag<&C::pin_memory>},
    {"augment", "--augment", K::boolean, 0, 0, false, set_flag<&C::augment>, get_flag<&C::augment>},
    {"sync_every_step", "--sync-every-step", K::boolean, 0, 0, false, set_flag<&C::sync_every_step>,
     get_flag<&C::sync_every_step>},
    {"amp", "--amp", K::amp, 0, 0, false, set_text<&C::amp>, get_text<&C::amp>},
    {"accumulate", "--accumulate", K::integer, 1, 1024, false, set_integer<&C::accumulate>, get_integer<&C::accumulate>},
    {"images", "--limit-train", K::integer, 0, 1e12, false, set_integer<&C::limit_train>, get_integer<&C::limit_train>},
    {"epochs", "--epochs", K::integer, 1, 1000, false, set_integer<&C::epochs>, get_integer<&C::epochs>},
    {"memory_limit_gib", "--memory-limit", K::number, 0, 4096, true, set_number<&C::memory_limit_gib>,
     get_number<&C::memory_limit_gib>, [](const C& c) { return c.memory_limit_gib > 0; }},
    {"lr", "--lr", K::number, 1e-6, 10, false, set_number<&C::lr>, get_float<&C::lr>},
    {"optimizer", "--optimizer", K::optimizer, 0, 0, false, set_text<&C::optimizer>, get_text<&C::optimizer>},
    {"momentum", "--momentum", K::number, 0, 0.999, false, set_number<&C::momentum>, get_float<&C::momentum>,
     [](const C& c) { return c.momentum > 0; }},
    {"weight_decay", "--weight-decay", K::number, 0, 1, false, set_number<&C::weight_decay>, get_float<&C::weight_decay>,
     [](const C& c) { return c.weight_decay >= 0; }},
    {"nesterov", "--nesterov", K::boolean, 0, 0, false, set_flag<&C::nesterov>, get_flag<&C::nesterov>, never},
    {"seed", "--seed", K::integer, 0, 1073741824, false, set_integer<&C::seed>, get_integer<&C::seed>},
    {"log_every", "--log-every", K::integer, 1, 1000000, false, set_integer<&C::log_every>, get_integer<&C::log_every>},
    {"deterministic", "--deterministic", K::boolean, 0, 0, false, set_flag<&C::deterministic>, get_flag<&C::deterministic>},
    {"cuda_graphs", "--cuda-graphs", K::boolean, 0, 0, false, set_flag<&C::cuda_graphs>, get_flag<&C::cuda_graphs>,
     [](const C& c) { return !c.cuda_graphs; }},  // written when off (on is the default)
    {"cpu_threads", "--cpu-threads", K::integer, 0, 1024, false, set_integer<&C::cpu_threads>, get_integer<&C::cpu_threads>},
    {"profile_schedule", "--profile-schedule", K::schedule, 0, 0, false, set_text<&C::profile_schedule>,
     get_text<&C::profile_schedule>, [](const C& c) { return !c.profile_schedule.empty(); }},
};

}  // namespace

std::span<const KnobDef> knobs() { return kKnobs; }

const KnobDef* find_knob(std::string_view name) {
  for (const KnobDef& k : kKnobs)
    if (name == k.name) return &k;
  return nullptr;
}

std::string knob_option(std::string_view name) {
  if (const KnobDef* k = find_knob(name)) return k->option;
  std::string o = "--" + std::string(name);
  std::replace(o.begin(), o.end(), '_', '-');
  return o;
}

std::vector<std::string> knob_choices(KnobType type) {
  switch (type) {
    case KnobType::device: return {"cuda", "cpu"};
    case KnobType::amp: return {"off", "fp16", "bf16"};
    case KnobType::optimizer: return {"sgd", "adam", "adamw"};
    default: return {};
  }
}

void apply_knob(RunConfig& c, const std::string& name, const std::string& value) {
  const KnobDef* k = find_knob(name);
  if (!k) throw InputError("unknown knob " + printable(name, 64));
  k->set(c, value);
}

std::vector<std::pair<std::string, std::string>> knobs_of(const RunConfig& c) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const KnobDef& k : kKnobs)
    if (!k.in_setup || k.in_setup(c)) out.emplace_back(k.name, k.get(c));
  return out;
}

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& [preset, json] : kModelPresets) names.emplace_back(preset);
  return names;
}

bool is_model_preset(const std::string& name) {
  for (const auto& [preset, json] : kModelPresets)
    if (name == preset) return true;
  return false;
}

std::optional<ModelSpec> preset_spec(const std::string& name) {
  for (const auto& [preset, json] : kModelPresets)
    if (name == preset) return parse_model_spec(json, std::string("preset ") + preset);
  return std::nullopt;
}

std::string preset_of(const ModelSpec& model) {
  const std::string json = to_json(model);
  for (const auto& [preset, text] : kModelPresets)
    if (to_json(parse_model_spec(text, std::string("preset ") + preset)) == json) return preset;
  return {};
}

ModelSpec resolve_model(const std::string& name) {
  if (!name.empty() && name.front() == '{') return parse_model_spec(name, "the setup's model");
  if (auto p = preset_spec(name)) return *p;
  if (!std::filesystem::exists(name)) {
    std::string names;
    for (const std::string& n : preset_names()) names += (names.empty() ? "" : ", ") + n;
    throw InputError("--model " + printable(name, 256) + ": no such preset or file (presets: " + names + ")");
  }
  return load_model_spec(name);
}

std::int64_t memory_limit_bytes(const RunConfig& c) {
  if (c.memory_limit_gib <= 0) return 0;
  try {
    return memory_limit_bytes_from_gib(c.memory_limit_gib);
  } catch (const InputError&) {  // below 1 MiB: refused by the front ends before a run; off here
    return 0;
  }
}

TrainConfig to_train_config(const RunConfig& given, const ModelSpec& model, Device device, std::string_view front_end) {
  // Page-locking means nothing without a GPU: a CPU run trains and records pin_memory off, from the
  // window and trainscope-run alike (the default stays on for CUDA runs: run_config.h).
  RunConfig r = given;
  r.pin_memory = given.pin_memory && device == Device::cuda;
  TrainConfig c;
  c.model = model;
  c.device = device;
  c.cuda_device = r.cuda_device;
  c.epochs = r.epochs;
  c.batch_size = r.batch_size;
  c.num_workers = r.num_workers;
  c.pin_memory = r.pin_memory;
  c.augment = r.augment;
  c.sync_every_step = r.sync_every_step;
  c.seed = r.seed;
  c.log_every = r.log_every;
  c.cpu_threads = r.cpu_threads;
  c.optimizer.type = parse_optimizer(r.optimizer);
  c.optimizer.lr = static_cast<float>(r.lr);
  c.optimizer.momentum = static_cast<float>(r.momentum);
  c.optimizer.nesterov = r.nesterov;
  c.optimizer.weight_decay = static_cast<float>(r.weight_decay);
  c.amp = parse_amp_mode(r.amp);
  c.accumulate = r.accumulate;
  c.deterministic = r.deterministic;
  c.cuda_graphs = r.cuda_graphs;
  c.memory_limit_bytes = memory_limit_bytes(r);
  c.checkpoint_every = r.checkpoint_every;
  c.checkpoint_path = r.checkpoint;
  c.resume_path = r.resume;
  c.run_config_json = run_config_json(r, model, front_end);
  return c;
}

}  // namespace ts::runconfig
