// A shared library that makes NVTX calls as torch.cuda.nvtx does, for Python test programs (ctypes):
// ts_steps(n, ms) runs n steps of range "data" then range "step" of ms milliseconds.
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <thread>

extern "C" __attribute__((visibility("default"))) void ts_steps(int n, int ms) {
  for (int s = 0; s < n; ++s) {
    nvtxRangePushA("data");
    nvtxRangePop();
    nvtxRangePushA("step");
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    nvtxRangePop();
  }
}

// One NVTX call each, for a stand-in torch.cuda.nvtx (tests/inject/python/fake_torch): the library
// sees them as it sees PyTorch's.
extern "C" __attribute__((visibility("default"))) int ts_push(const char* name) { return nvtxRangePushA(name); }
extern "C" __attribute__((visibility("default"))) int ts_pop() { return nvtxRangePop(); }
extern "C" __attribute__((visibility("default"))) void ts_mark(const char* name) { nvtxMarkA(name); }
