// RangeProfiler in a build without CUDA: never measures, says why (see range_profiler.h).
#include "profiling/metrics/range_profiler.h"

namespace ts::prof {

struct RangeProfiler::Impl {
  std::string why = "built without CUDA";
  std::string detail = "TrainScope was built without CUDA (TRAINSCOPE_CUDA=OFF): no GPU counters";
  std::map<std::string, std::string> counters, absent;
};

RangeProfiler::RangeProfiler(RangeProfilerOptions) : impl_(std::make_unique<Impl>()) {}
RangeProfiler::~RangeProfiler() = default;
bool RangeProfiler::ready() const { return false; }
const std::string& RangeProfiler::why() const { return impl_->why; }
const std::string& RangeProfiler::detail() const { return impl_->detail; }
const std::map<std::string, std::string>& RangeProfiler::counters() const { return impl_->counters; }
const std::map<std::string, std::string>& RangeProfiler::absent() const { return impl_->absent; }

range::RangeResult RangeProfiler::profile(const std::function<bool()>&) {
  range::RangeResult r;
  r.why = impl_->why;
  r.detail = impl_->detail;
  return r;
}

}  // namespace ts::prof
