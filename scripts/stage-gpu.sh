#!/usr/bin/env bash
# Builds the GPU-machine binaries (preset gpu-h200: CUDA sm_90 only, no GUI, no oneDNN) and copies
# what scripts/gpu-check.sh needs into stage/ (git-ignored), stripped, for the device tool's carry.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset gpu-h200 >/dev/null
cmake --build build-gpu -j "$(nproc)" --target trainscope-run ts_gpu_tests
rm -rf stage && mkdir -p stage
cp build-gpu/app/trainscope-run build-gpu/tests/ts_gpu_tests stage/
strip stage/*
[ -f ../shared/bench/pytorch_seed_cnn.py ] && cp ../shared/bench/pytorch_seed_cnn.py stage/
du -sh stage
