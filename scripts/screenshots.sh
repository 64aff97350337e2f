#!/usr/bin/env bash
# Screenshots of the TrainScope window before, during and after a short CPU run on the generated
# sample set, under Xvfb (no display needed). Images go to OUT (default build-gui/screenshots);
# they are for looking at, not for committing.
#   scripts/screenshots.sh [OUT]      env: BUILD_DIR (default build-gui), EPOCHS (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-gui}
OUT=${1:-$BUILD_DIR/screenshots}
if [ ! -x "$BUILD_DIR/app/trainscope" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release ${TRAINSCOPE_CMAKE_ARGS:-}
  cmake --build "$BUILD_DIR" --target trainscope
fi
mkdir -p "$OUT"
xvfb-run -a -s "-screen 0 1600x1000x24" "$BUILD_DIR/app/trainscope" --autorun --device cpu \
  --epochs "${EPOCHS:-3}" --limit-train 2560 --num-workers 1 --screenshots "$OUT" --quit-when-done
ls -l "$OUT"/*.png
