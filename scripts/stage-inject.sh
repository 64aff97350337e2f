#!/usr/bin/env bash
# Builds what scripts/inject-check.sh needs on the H200 (preset gpu-h200: CUDA sm_90, no GUI, no
# oneDNN) and copies it into stage/ (git-ignored): trainscope-run, libtrainscope_inject.so,
# ts_inject_cuda_program, the Python insight's trainscope_site, and ../shared/bench/{seed_train.py,pytorch_seed_cnn.py} (the program to
# profile; never committed). Then, on the device: scripts/inject-check.sh stage "$OUT" (carry stage).
# BUILD=build: take the binaries of the normal build instead (it compiles sm_90 too) and add the
# window (trainscope) with stage/qt.tar.xz, the Qt runtime and every other library they link
# (oneDNN included), for scripts/program-live-check.sh: no second CUDA build.
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(dirname "$PWD")}"
B=${BUILD:-build-gpu}
if [ "$B" = build-gpu ]; then
  cmake --preset gpu-h200 >/dev/null
  cmake --build build-gpu -j "${JOBS:-2}" --target trainscope-run trainscope_inject ts_inject_cuda_program
else
  cmake --build "$B" -j "${JOBS:-2}" --target trainscope trainscope-run trainscope_inject ts_inject_cuda_program
fi
rm -rf stage && mkdir -p stage
cp "$B"/app/trainscope-run "$B"/app/libtrainscope_inject.so "$B"/tests/inject/ts_inject_cuda_program stage/
if [ "$B" != build-gpu ]; then
  cp "$B"/app/trainscope stage/ && strip stage/trainscope
  ../shared/tools/pack-qt-runtime.sh stage/qt.tar.xz stage/trainscope "$B"/app/trainscope-run
fi
# The Python insight's package, beside the library where trainscope-run looks for it.
cp -r profiling/inject/python/trainscope_site stage/trainscope_site
find stage/trainscope_site -name __pycache__ -prune -exec rm -rf {} +
strip stage/trainscope-run stage/ts_inject_cuda_program
strip --strip-unneeded stage/libtrainscope_inject.so
for f in seed_train.py pytorch_seed_cnn.py; do
  [ -f "../shared/bench/$f" ] && cp "../shared/bench/$f" stage/ || echo "warning: ../shared/bench/$f missing" >&2
done
du -sh stage
