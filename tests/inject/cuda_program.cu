// A small CUDA program for the injection library's GPU checks (scripts/inject-check.sh runs it under
// trainscope-run on the H200): steps as NVTX ranges, each with K tiny kernels and a 4-byte D2H copy
// (a sync, as loss.item()).
//   ts_inject_cuda_program [--steps N] [--kernels K] [--crash-at S] [--cupti] [--exit CODE]
// --crash-at S: a segmentation fault in step S (the session keeps all but the last second).
// --cupti: the program subscribes to CUPTI itself after CUDA started (as torch.profiler does) and
// prints what CUPTI said: one subscriber per process, and the injection library came first.
// Exit 77 (skip) when there is no usable GPU.
#include <cuda_runtime.h>
#include <cupti.h>
#include <nvtx3/nvToolsExt.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

__global__ void tiny(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 0.5f + 1.0f;
}

void CUPTIAPI no_callback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

int main(int argc, char** argv) {
  int steps = 50, kernels = 40, crash_at = -1, code = 0;
  bool own_cupti = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--steps" && i + 1 < argc) steps = std::atoi(argv[++i]);
    else if (a == "--kernels" && i + 1 < argc) kernels = std::atoi(argv[++i]);
    else if (a == "--crash-at" && i + 1 < argc) crash_at = std::atoi(argv[++i]);
    else if (a == "--exit" && i + 1 < argc) code = std::atoi(argv[++i]);
    else if (a == "--cupti") own_cupti = true;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("cuda program: no usable GPU\n");
    return 77;
  }
  if (own_cupti) {
    CUpti_SubscriberHandle h = nullptr;
    const CUptiResult r = cuptiSubscribe(&h, no_callback, nullptr);
    const char* s = nullptr;
    cuptiGetResultString(r, &s);
    std::printf("cuda program: its own cuptiSubscribe: %s\n", s ? s : "?");
    if (r == CUPTI_SUCCESS) cuptiUnsubscribe(h);
  }
  constexpr int n = 1 << 12;
  float* d = nullptr;
  if (cudaMalloc(&d, n * sizeof(float)) != cudaSuccess) return 3;
  cudaMemset(d, 0, n * sizeof(float));
  float host = 0;
  for (int s = 0; s < steps; ++s) {
    nvtxRangePushA("step");
    for (int k = 0; k < kernels; ++k) tiny<<<n / 256, 256>>>(d, n);
    if (cudaGetLastError() != cudaSuccess) return 4;
    cudaMemcpy(&host, d, sizeof(float), cudaMemcpyDeviceToHost);
    nvtxRangePop();
    if (s == crash_at) {
      std::printf("cuda program: crashing in step %d\n", s);
      std::fflush(stdout);
      std::raise(SIGSEGV);
    }
  }
  cudaFree(d);
  std::printf("cuda program: %d steps of %d kernels, last value %g\n", steps, kernels, host);
  return code;
}
