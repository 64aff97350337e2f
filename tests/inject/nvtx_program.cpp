// A small program that is not a CUDA program but uses NVTX as torch.cuda.nvtx does (nvtx3, so
// NVTX_INJECTION64_PATH loads TrainScope's library at the first NVTX call). For the injection tests.
//   ts_inject_nvtx_program [--steps N] [--step-ms MS] [--fork] [--forever] [--exit CODE] [--name NAME]
// Each step: range "data" (1 ms), then range NAME (default "step") holding a nested "forward".
// --fork: a child process (as a DataLoader worker) makes NVTX calls too and leaves with _exit.
#include <nvtx3/nvToolsExt.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

int main(int argc, char** argv) {
  int steps = 5, step_ms = 20, code = 0;
  bool fork_child = false, forever = false;
  std::string name = "step";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--steps" && i + 1 < argc) steps = std::atoi(argv[++i]);
    else if (a == "--step-ms" && i + 1 < argc) step_ms = std::atoi(argv[++i]);
    else if (a == "--exit" && i + 1 < argc) code = std::atoi(argv[++i]);
    else if (a == "--name" && i + 1 < argc) name = argv[++i];
    else if (a == "--fork") fork_child = true;
    else if (a == "--forever") forever = true;
  }
  nvtxNameOsThreadA(0, "ignored");  // the first NVTX call loads the injection
  if (fork_child) {
    const pid_t p = fork();
    if (p == 0) {
      for (int i = 0; i < 3; ++i) {
        nvtxRangePushA("step");
        nvtxRangePop();
      }
      _exit(0);
    }
    waitpid(p, nullptr, 0);
  }
  std::printf("nvtx program: %d steps\n", steps);
  std::fflush(stdout);
  for (int s = 0; forever || s < steps; ++s) {
    nvtxRangePushA("data");
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    nvtxRangePop();
    nvtxRangePushA(name.c_str());
    nvtxRangePushA("forward");
    std::this_thread::sleep_for(std::chrono::milliseconds(step_ms));
    nvtxRangePop();
    nvtxRangePop();
  }
  return code;
}
