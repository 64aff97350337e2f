// CuptiCollector without the CUDA backend: never active, says why.
#include "profiling/cupti/cupti_collector.h"

namespace ts::prof {

struct CuptiCollector::Impl {
  std::string why = "no GPU activity: this TrainScope was built without CUDA (and CUPTI)";
};

CuptiCollector::CuptiCollector(EventStore&, std::int64_t, int, CuptiKinds) : impl_(std::make_unique<Impl>()) {}
CuptiCollector::~CuptiCollector() = default;
bool CuptiCollector::active() const { return false; }
const std::string& CuptiCollector::why() const { return impl_->why; }
void CuptiCollector::set_mode(CuptiMode) {}
CuptiMode CuptiCollector::mode() const { return CuptiMode::off; }
void CuptiCollector::drain_device() {}
void CuptiCollector::stop() {}
bool cupti_built() { return false; }

}  // namespace ts::prof
