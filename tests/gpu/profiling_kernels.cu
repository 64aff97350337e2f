// A known kernel for the profiler's GPU tests (tests/gpu/test_profiling_gpu.cpp).
#include <cuda_runtime.h>

__global__ void ts_test_scale(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}

/// Launches ts_test_scale over n floats: grid ceil(n/128) x 128 threads.
cudaError_t ts_launch_test_scale(float* x, int n, cudaStream_t stream) {
  ts_test_scale<<<(n + 127) / 128, 128, 0, stream>>>(x, n);
  return cudaGetLastError();
}

namespace ts::kernels::sanitizer_control {
// A deliberate shared-memory race: every thread of the block writes slot 0 and reads it back with
// no barrier (volatile, so that the compiler keeps both accesses). racecheck must report it;
// SanitizerControl.RacyKernelIsSeenByRacecheck launches it as the racecheck runs' positive control.
__global__ void racy_shared(int* out) {
  volatile __shared__ int slot;
  slot = static_cast<int>(threadIdx.x);
  out[threadIdx.x] = slot;
}
}  // namespace ts::kernels::sanitizer_control

/// Launches racy_shared: one block of `threads` (<= 1024) threads, writing out[0 .. threads).
cudaError_t ts_launch_racy_shared(int* out, int threads, cudaStream_t stream) {
  ts::kernels::sanitizer_control::racy_shared<<<1, threads, 0, stream>>>(out);
  return cudaGetLastError();
}
