// PmSampler in a build without CUDA: never samples, says why (see pm_sampler.h).
#include "profiling/metrics/pm_metrics.h"
#include "profiling/metrics/pm_sampler.h"

namespace ts::prof {

struct PmSampler::Impl {
  std::string why = "no measured metrics: TrainScope was built without CUDA";
};

PmSampler::PmSampler(EventStore& store, std::int64_t, PmSamplerOptions) : impl_(std::make_unique<Impl>()) {
  store.set_meta("pm_sampling", impl_->why);
}
PmSampler::~PmSampler() = default;
bool PmSampler::active() const { return false; }
const std::string& PmSampler::why() const { return impl_->why; }
std::vector<std::string> PmSampler::metrics() const { return {}; }
void PmSampler::stop() {}
std::shared_ptr<const pm::PmApi> linked_pm_api() { return nullptr; }
std::string probe_counter_access(int) { return "built without CUDA"; }
std::optional<double> measure_copy_ceiling(int, std::string* why) {
  if (why) *why = "built without CUDA";
  return std::nullopt;
}

}  // namespace ts::prof
