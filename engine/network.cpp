// Backend dispatch: builds the network on the asked device, or says why it cannot.
#include "engine/network.h"

#include "engine/errors.h"

namespace ts {

#ifndef TRAINSCOPE_HAVE_CUDA
bool cuda_available(std::string* why) {
  if (why) *why = "this TrainScope was built without the CUDA backend (TRAINSCOPE_CUDA=OFF or no toolkit)";
  return false;
}
std::vector<DeviceInfo> list_cuda_devices() { return {}; }
#endif

std::unique_ptr<Network> make_network(Device device, const ModelSpec& spec, const NetworkOptions& options) {
  infer_shapes(spec);  // throws ModelSpecError naming the layer
  if (options.max_batch_size <= 0)
    throw InputError("batch size must be > 0, got " + std::to_string(options.max_batch_size));
  if (device == Device::cuda) {
    std::string why;
    if (!cuda_available(&why)) throw DeviceError("no usable GPU: " + why + "; use --device cpu");
#ifdef TRAINSCOPE_HAVE_CUDA
    return make_cuda_network(spec, options);
#endif
  }
#ifdef TRAINSCOPE_HAVE_ONEDNN
  return make_cpu_network(spec, options);
#else
  throw DeviceError("this TrainScope was built without the CPU backend (TRAINSCOPE_ONEDNN=OFF or no oneDNN)");
#endif
}

}  // namespace ts
