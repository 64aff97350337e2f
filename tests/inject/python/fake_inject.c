/* A stand-in for libtrainscope_inject.so's Python entry points (PROTOCOL.md section 2), built by
 * test_sampler.py when a C compiler is present: it counts what arrives and whether every id was
 * defined before use, so the ctypes signatures and the ordering are checked end to end. */
#include <stdint.h>
#include <string.h>

static int counts[4]; /* frames, stacks, samples, violations */
static uint32_t frames_defined, stacks_defined;

int trainscope_py_frame(uint32_t id, const char* function, const char* file, int32_t line) {
  if (id != frames_defined + 1 || !function || !file || !*file || line < 0) ++counts[3];
  frames_defined = id > frames_defined ? id : frames_defined;
  ++counts[0];
  return 0;
}

int trainscope_py_stack(uint32_t id, const uint32_t* frame_ids, uint32_t n) {
  if (id != stacks_defined + 1 || n == 0 || n > 48) ++counts[3];
  for (uint32_t i = 0; i < n; ++i)
    if (frame_ids[i] == 0 || frame_ids[i] > frames_defined) ++counts[3];
  stacks_defined = id > stacks_defined ? id : stacks_defined;
  ++counts[1];
  return 0;
}

int trainscope_py_sample(uint32_t tid, int64_t steady_ns, uint32_t stack) {
  if (tid == 0 || steady_ns <= 0 || stack == 0 || stack > stacks_defined) ++counts[3];
  ++counts[2];
  return 0;
}

int fake_count(int which) { return which >= 0 && which < 4 ? counts[which] : -1; }
