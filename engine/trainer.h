// The trainer: epochs of steps over a DataLoader on one Network, test accuracy after each epoch.
// The loss is read back every step only with sync_every_step (what the seed's loss.item() does);
// otherwise the per-step losses stay on the device and are read once per log interval.
// Runs on the calling thread; `stop` is polled after every step (Ctrl-C in the runner, Stop in the GUI).
// AMP, gradient accumulation and deterministic mode are passed to the Network (NetworkOptions);
// checkpoints (engine/checkpoint.h) are written after every checkpoint_every-th epoch's evaluation
// and a run resumes from one with resume_path: the loader's order, augmentation and dropout are pure
// functions of (seed, epoch, step), so a deterministic run resumed from epoch k's checkpoint repeats
// the uninterrupted run's later losses bit for bit.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/errors.h"
#include "engine/cifar10.h"
#include "engine/data_loader.h"
#include "engine/network.h"

namespace ts {

/// The most threads a run may ask for, of either kind (TrainConfig::cpu_threads, num_workers): 4 x
/// the machine's hardware threads (std::thread::hardware_concurrency(), 1 when it is not known).
/// Why 4 per core: compute threads past the cores only wait on one another (256 OpenMP threads on 2
/// cores made a 2 s run take 56 s) and loader workers past a few per core have nothing to do, while
/// far more fail outright (--cpu-threads 100000 crashed inside libgomp; --num-workers 30000 ran into
/// the process's thread limit, EAGAIN). Four per core still leaves room to show oversubscription.
int max_run_threads();

struct TrainConfig {
  ModelSpec model = simple_cnn_spec();
  Device device = Device::cpu;
  int cuda_device = 0;        // CUDA device index (Device::cuda)
  int epochs = 1;
  std::int64_t batch_size = 128;
  int num_workers = 0;
  bool pin_memory = true;
  bool augment = false;
  bool sync_every_step = false;
  std::uint64_t seed = 0;
  OptimizerConfig optimizer;
  int log_every = 100;        // steps between loss read-backs (when not sync_every_step)
  int cpu_threads = 0;        // CPU backend threads, 0 = library default
  bool allow_tf32 = true;
  AmpMode amp = AmpMode::off;
  int accumulate = 1;         // micro-batches (of batch_size) per optimizer step
  bool deterministic = false; // deterministic cuDNN algorithms (no autotuning), fixed reduction order
  bool cuda_graphs = false;   // CUDA: each step one CUDA-graph replay (NetworkOptions::cuda_graphs)
  /// Simulate a smaller card: cap on the allocator's reserved bytes (engine/memory.h), 0 = the real
  /// card. An allocation past it throws OutOfMemoryError naming the simulated card, with the advice
  /// (a batch size that fits the cap, --accumulate for the same effective batch, --amp bf16).
  std::int64_t memory_limit_bytes = 0;
  int checkpoint_every = 0;   // epochs between checkpoints (0 = none)
  /// Checkpoint file, or a folder (existing, or ending in '/') that gets checkpoint-epochN.tsckpt.
  std::string checkpoint_path = "trainscope.tsckpt";
  std::string resume_path;    // checkpoint to continue from ("" = start fresh)
  std::string run_config_json;  // the front end's knobs, stored in checkpoints as they are
};

/// Per-step values as the observer sees them. `loss` is NaN for steps whose loss was not read.
struct StepReport {
  int epoch = 0;                    // 1-based
  std::int64_t step = 0;            // 1-based within the epoch
  std::int64_t steps_in_epoch = 0;
  std::int64_t global_step = 0;     // 1-based over the run
  std::vector<float> losses;        // losses read at this report, oldest first (ending with this step's)
  /// fp16 AMP: the loss scale of each step in `losses` (same order), negated where the optimizer step
  /// was skipped for inf/NaN gradients (chart marks); 0 for a micro-batch that made no update. Empty
  /// otherwise.
  std::vector<float> loss_scales;
  double images_per_s = 0;          // training throughput of the epoch so far
};

struct EpochResult {
  int epoch = 0;                    // 1-based
  double train_loss = 0;            // mean of the epoch's step losses
  double test_accuracy = 0;         // fraction 0..1
  double test_loss = 0;             // mean cross-entropy over the test set
  double images_per_s = 0;          // training images / training seconds (eval excluded)
  double train_seconds = 0, eval_seconds = 0;
  std::int64_t images = 0, steps = 0;
  std::int64_t data_wait_ns = 0;    // trainer time blocked on the loader
  float loss_scale = 1.0f;          // fp16 loss scale at the end of the epoch (1 otherwise)
  std::int64_t skipped_steps = 0;   // optimizer steps skipped so far in the run (fp16)
  std::string checkpoint;           // file written after this epoch ("" = none)
};

struct TrainSummary {
  DeviceInfo device;
  std::vector<EpochResult> epochs;
  bool interrupted = false;
  double images_per_s = 0;          // over all epochs' training time
  double train_loss = 0;            // last epoch's
  double test_accuracy = 0;         // last epoch's
  MemoryStats memory;
  TrainingCounters counters;        // at the end: optimizer steps, loss scale, skipped steps
  int first_epoch = 1;              // > 1 when resumed from a checkpoint
};

struct TrainerObserver {
  std::function<void(const StepReport&)> on_step;        // after each read-back (or every step when syncing)
  std::function<void(const EpochResult&)> on_epoch;
  std::function<void(const std::string&)> on_message;   // informational lines
  /// Called on the trainer thread after every step, before `stop` is polled; a front end may block
  /// here to pause the run between steps (the GUI's Pause). Must return once `stop` is set.
  std::function<void()> between_steps;
};

class Trainer {
 public:
  /// `data` must outlive the trainer. Throws InputError (bad batch size, empty data, invalid
  /// model, an optimizer number out of range or NaN, a checkpoint folder that cannot be written
  /// when checkpoints are asked for), DeviceError / OutOfMemoryError (device problems) from the constructor or run().
  Trainer(TrainConfig config, const Cifar10& data, TrainerObserver observer = {});
  ~Trainer();
  Network& network() { return *network_; }
  /// Trains config.epochs epochs, stopping early (after the current step) when `stop` becomes true.
  /// Throws Error when the loss becomes NaN or infinite (fp32: the run cannot recover); on_step
  /// has received the losses up to and including the non-finite one before the throw.
  TrainSummary run(const std::atomic<bool>& stop);
  /// Writes a checkpoint of the current state (between epochs: `epochs_done` complete) to `path`.
  void save(const std::string& path, int epochs_done, std::int64_t global_step);

 private:
  /// The network and the loaders (the constructor's work after the checks).
  void build();
  LoaderOptions loader_options(bool train) const;
  /// The batch sizes other than batch_size this run's loaders produce: the epoch's last short batch
  /// (train count % batch_size, when not 0), the test batch and the test set's last batch. The
  /// network prepares them while it is built (NetworkOptions::planned_batch_sizes).
  std::vector<std::int64_t> batch_sizes_besides_full() const;
  /// The train and test loaders' ring bytes per sample of batch (they hold whole batches, bytes).
  std::int64_t loader_ring_bytes_per_sample() const;
  /// The network options a footprint is measured with (optimizer, seed, CPU threads, accumulation).
  NetworkOptions footprint_options() const;
  TrainSummary run_epochs(const std::atomic<bool>& stop);
  /// Rethrows `e`; a CPU-backend OOM at the memory cap gets the advice first (the run's measured
  /// footprint against the cap: a batch size that fits, --accumulate for the same effective batch).
  [[noreturn]] void rethrow_oom(const OutOfMemoryError& e) const;
  /// A CPU run without --memory-limit: its footprint at the batch size against the host's available
  /// memory before anything is built (check_host_memory); measured only when the shapes' lower
  /// bound comes near it, so a small run pays nothing.
  void check_host_memory_up_front() const;
  /// Loads config.resume_path into the network; returns the epochs it had completed.
  int resume(std::int64_t& global_step);
  std::string checkpoint_file(int epoch) const;
  EpochResult train_epoch(int epoch, const std::atomic<bool>& stop, std::int64_t& global_step);
  void evaluate(EpochResult& r);
  /// drain_step_losses() inside a host-trace sync range; reports the losses to the trace sink.
  std::vector<float> drain_traced(std::int64_t global_step, std::vector<float>* scales);
  void report_losses(std::vector<float> losses, std::vector<float> scales, int epoch, std::int64_t step, std::int64_t global_step,
                     double images_per_s, double& loss_sum, std::int64_t& loss_count);

  TrainConfig config_;
  const Cifar10& data_;
  TrainerObserver observer_;
  std::unique_ptr<Network> network_;
  std::unique_ptr<DataLoader> train_loader_, test_loader_;
};

}  // namespace ts
