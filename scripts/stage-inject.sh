#!/usr/bin/env bash
# Builds what scripts/inject-check.sh needs on the H200 (preset gpu-h200: CUDA sm_90, no GUI, no
# oneDNN) and copies it into stage/ (git-ignored): trainscope-run, libtrainscope_inject.so,
# ts_inject_cuda_program, and ../shared/bench/{seed_train.py,pytorch_seed_cnn.py} (the program to
# profile; never committed). Then, on the device: scripts/inject-check.sh stage "$OUT" (carry stage).
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(dirname "$PWD")}"
cmake --preset gpu-h200 >/dev/null
cmake --build build-gpu -j "${JOBS:-2}" --target trainscope-run trainscope_inject ts_inject_cuda_program
rm -rf stage && mkdir -p stage
cp build-gpu/app/trainscope-run build-gpu/app/libtrainscope_inject.so build-gpu/tests/inject/ts_inject_cuda_program stage/
strip stage/trainscope-run stage/ts_inject_cuda_program
strip --strip-unneeded stage/libtrainscope_inject.so
for f in seed_train.py pytorch_seed_cnn.py; do
  [ -f "../shared/bench/$f" ] && cp "../shared/bench/$f" stage/ || echo "warning: ../shared/bench/$f missing" >&2
done
du -sh stage
