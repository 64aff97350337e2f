// One run configuration: the knobs of a training run as one value type, the table that names them
// (trainscope-run's option, the lesson/setup knob name, its type and range), the model presets, the
// engine's TrainConfig built from it and the session's run.config JSON written and read back.
// trainscope-run's options (app/runner/runner.h) are this plus the runner's own options; the
// window's form (widgets/training/run_settings.h) converts to and from it; lessons and setups validate
// their knobs against its table. A new knob is one entry in kKnobs (run_config.cpp), its field
// here, its key in run_config_json.cpp when sessions should record it, and the window's widget.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/model_spec.h"
#include "engine/trainer.h"

namespace ts::runconfig {

/// A run's knobs. Defaults are trainscope-run's; the window starts from its own (RunSettings), which
/// takes pin_memory's from here (one default for both front ends).
struct RunConfig {
  std::string model = "simple_cnn";  // a preset name, a model-spec file or an inline spec ('{...}')
  std::string device = "auto";       // auto | cuda | cpu
  int cuda_device = 0;               // CUDA device index (device cuda)
  int epochs = 1;
  std::int64_t batch_size = 128;
  int num_workers = 2;
  // Page-locked batch buffers, on by default: what PyTorch users set with num_workers > 0
  // (DataLoader(pin_memory=True)), and pageable copies are what the pinned_memory lesson warns about.
  // CUDA runs only: to_train_config records it off for a CPU run.
  bool pin_memory = true;
  double lr = 1e-3;
  std::string optimizer = "adam";    // sgd | adam | adamw
  double momentum = 0.0;             // SGD only
  double weight_decay = -1.0;        // < 0: the optimizer's default (0, AdamW 0.01)
  bool nesterov = false;
  std::uint64_t seed = 0;
  std::int64_t limit_train = 0;      // the knob `images`: the first N training images (0 = all)
  bool augment = false;
  bool sync_every_step = false;
  int log_every = 100;               // steps between loss read-backs (and the runner's progress lines)
  int cpu_threads = 0;               // CPU backend threads, 0 = all cores
  std::string amp = "off";           // off | fp16 | bf16
  int accumulate = 1;                // micro-batches per optimizer step
  bool deterministic = false;
  // CUDA: each step one replay of a captured CUDA graph (NetworkOptions). On by default: faster at every
  // batch size measured (bench/RESULTS.md, "CUDA-graph steps"); ignored on the CPU and with accumulate > 1;
  // lessons pin it off unless they say otherwise (app/runner/lesson_cmd.cpp).
  bool cuda_graphs = true;
  double memory_limit_gib = 0;       // a simulated smaller card, GiB (0 = the real card)
  int checkpoint_every = 0;          // epochs between checkpoints (0 = none)
  std::string checkpoint = "trainscope.tsckpt";  // checkpoint file or folder
  std::string resume;                // checkpoint to continue from ("" = start fresh)
  std::string data;                  // CIFAR-10 folder; "" = the generated sample set
  std::string profile_schedule;      // "wait=W,warmup=U,active=A,repeat=R"; "" = every step
};

/// What a knob's value must be (lessons/knobs.cpp checks a JSON value against it).
enum class KnobType { integer, boolean, number, text, schedule, model, device, amp, optimizer };

/// One knob: its name in lessons and setups, trainscope-run's option, type and range (inclusive;
/// `min_exclusive` for "> min"; the window's form uses the same ranges), and how it reads and
/// writes a RunConfig as text (Knob::value: "128", "true", "0.001", "bf16").
struct KnobDef {
  const char* name;
  const char* option;
  KnobType type;
  double min = 0, max = 0;
  bool min_exclusive = false;
  void (*set)(RunConfig&, const std::string& value) = nullptr;
  std::string (*get)(const RunConfig&) = nullptr;
  /// Whether a saved setup carries the knob for this config (nullptr: always).
  bool (*in_setup)(const RunConfig&) = nullptr;
};

/// Every knob, in docs/lessons.md's order.
std::span<const KnobDef> knobs();
/// The knob named `name`, or nullptr.
const KnobDef* find_knob(std::string_view name);
/// The command-line option a knob stands for ("batch_size" -> "--batch-size", "images" ->
/// "--limit-train"); for a name not in the table, "--" + the name with '-' for '_'.
std::string knob_option(std::string_view name);
/// The allowed values of a device / amp / optimizer knob ({} for the other types).
std::vector<std::string> knob_choices(KnobType type);

/// Sets knob `name` to `value` (text already checked against the table: lessons/knob_json.h).
/// Throws InputError for an unknown knob, std::invalid_argument / std::out_of_range for a number
/// that does not parse.
void apply_knob(RunConfig& c, const std::string& name, const std::string& value);
/// The knobs a setup saved from `c` carries, as (name, value) in the table's order: each knob whose
/// in_setup holds (device only when not auto, memory_limit_gib only when > 0, ...).
std::vector<std::pair<std::string, std::string>> knobs_of(const RunConfig& c);

/// The built-in model presets' names (resources/models), in their order.
std::vector<std::string> preset_names();
/// Whether `name` is a built-in model preset.
bool is_model_preset(const std::string& name);
/// A preset's spec (nullopt for an unknown name).
std::optional<ModelSpec> preset_spec(const std::string& name);
/// The preset whose layers `model` are (same spec JSON), or "" when none.
std::string preset_of(const ModelSpec& model);
/// The model `name` names: a preset, a model-spec JSON file, or a spec's JSON itself (a setup's
/// inline model: text starting with '{'). Throws InputError naming it and listing the presets when
/// it is none of these, or the spec reader's error for a bad file or spec.
ModelSpec resolve_model(const std::string& name);

/// The allocator cap of c.memory_limit_gib in bytes; 0 when off or below the 1 MiB minimum (the
/// front ends refuse that first: trainscope-run --memory-limit).
std::int64_t memory_limit_bytes(const RunConfig& c);

/// The engine's config for `c` with the model already resolved and the device chosen (c.device is
/// recorded as it is: pass it resolved). run_config_json is run_config_json(c, model, front_end),
/// so checkpoints and the session's run.config hold the same text. pin_memory is off unless `device`
/// is CUDA (nothing to page-lock for on the CPU), the same for every front end.
TrainConfig to_train_config(const RunConfig& c, const ModelSpec& model, Device device, std::string_view front_end);

/// The session's meta run.config (also kept in checkpoints): every knob of the run as one compact
/// JSON object, the same keys from every front end ("trainscope-run", "trainscope"): front_end,
/// model_name, model_arg, layers, device, cuda_device, epochs, batch_size, num_workers,
/// pin_memory, augment, sync_every_step, amp, accumulate, deterministic, memory_limit_bytes,
/// optimizer, lr, momentum, nesterov, weight_decay, seed, log_every, cpu_threads, allow_tf32,
/// limit_train, data ("sample" for the generated set), profile_schedule, resume.
std::string run_config_json(const RunConfig& c, const ModelSpec& model, std::string_view front_end);
/// The keys run_config_json writes, in its order.
const std::vector<std::string>& run_config_keys();

/// A recorded run.config read onto `base`: a key that is absent or of the wrong type keeps base's
/// value (memory_limit_bytes excepted: absent means the real card, 0 GiB); "data": "sample" is the
/// sample set (""). Reads the knobs a run can be started again with: epochs, batch_size,
/// num_workers, accumulate, limit_train, cuda_device, lr, momentum, weight_decay, pin_memory,
/// augment, sync_every_step, deterministic, cuda_graphs (absent: off — runs recorded before the key was
/// written were eager), memory_limit_bytes, seed, device, optimizer, amp, data.
/// nullopt when the text is not a JSON object, is empty, or is too deep or long to read safely.
std::optional<RunConfig> read_run_config(const std::string& json, RunConfig base);

}  // namespace ts::runconfig
