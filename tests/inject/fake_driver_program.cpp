// Plays the CUDA driver's part for the injection tests: loads CUDA_INJECTION64_PATH and calls its
// InitializeInjection (what cuInit does), then makes NVTX steps for ~1.5 s and exits normally; with
// --sync-ms M each step ends in a stand-in cudaStreamSynchronize of M ms (fake_cupti.cpp's, found in
// the library TRAINSCOPE_CUPTI names, which the injection library has loaded).
//   ts_inject_fake_driver_program [--steps N] [--sync-ms M]
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

int main(int argc, char** argv) {
  int steps = 60, sync_ms = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--steps") steps = std::atoi(argv[i + 1]);
    if (std::string(argv[i]) == "--sync-ms") sync_ms = std::atoi(argv[i + 1]);
  }
  const char* path = std::getenv("CUDA_INJECTION64_PATH");
  void* h = path ? dlopen(path, RTLD_NOW) : nullptr;
  auto init = h ? reinterpret_cast<int (*)()>(dlsym(h, "InitializeInjection")) : nullptr;
  if (!init) {
    std::printf("fake driver: no injection library\n");
    return 3;
  }
  init();
  void (*sync)(int) = nullptr;
  if (const char* cupti = std::getenv("TRAINSCOPE_CUPTI"); cupti && sync_ms > 0)
    if (void* c = dlopen(cupti, RTLD_NOW | RTLD_NOLOAD))
      sync = reinterpret_cast<void (*)(int)>(dlsym(c, "fake_cupti_stream_synchronize"));
  for (int s = 0; s < steps; ++s) {
    nvtxRangePushA("step");
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    if (sync) sync(sync_ms);
    nvtxRangePop();
  }
  std::printf("fake driver: %d steps\n", steps);
  return 0;
}
