// Plays the CUDA driver's part for the injection tests: loads CUDA_INJECTION64_PATH and calls its
// InitializeInjection (what cuInit does), then makes NVTX steps for ~1.5 s and exits normally.
//   ts_inject_fake_driver_program [--steps N]
#include <dlfcn.h>
#include <nvtx3/nvToolsExt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

int main(int argc, char** argv) {
  int steps = 60;
  if (argc > 2 && std::string(argv[1]) == "--steps") steps = std::atoi(argv[2]);
  const char* path = std::getenv("CUDA_INJECTION64_PATH");
  void* h = path ? dlopen(path, RTLD_NOW) : nullptr;
  auto init = h ? reinterpret_cast<int (*)()>(dlsym(h, "InitializeInjection")) : nullptr;
  if (!init) {
    std::printf("fake driver: no injection library\n");
    return 3;
  }
  init();
  for (int s = 0; s < steps; ++s) {
    nvtxRangePushA("step");
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    nvtxRangePop();
  }
  std::printf("fake driver: %d steps\n", steps);
  return 0;
}
