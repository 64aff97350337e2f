#!/usr/bin/env bash
# Screenshots of the TrainScope window under Xvfb (no display needed), at the screen sizes people
# show it on: 1280x720 (a classroom projector), 1366x768 (a laptop), 1920x1080, and 1920x1080 at
# 125 % scaling (QT_SCALE_FACTOR=1.25). For each: the Profile workspace with an H200 session and with
# a PyTorch trace, and the Train workspace before, during and after a short CPU run on the generated
# sample set. Each run starts with fresh settings (a first run: the window clamped to the screen).
# Images go to OUT/<scene>-<size>/ (default build/screenshots); they are for looking at, not for
# committing.
#   scripts/screenshots.sh [OUT]
#   env: BUILD_DIR (default build), EPOCHS (default 2), SESSION (default tests/data/gpu_b128_nw4.tsession),
#        TRACE (default the ResNet-50 trace of ../shared/cases/traces when present, else
#        tests/data/traces/kineto_small.json), SIZES (default "1280x720 1366x768 1920x1080 1920x1080@1.25")
# Every other view a teacher shows (Profile with each tab open, a job, Side by side during a run,
# Compare, a lesson, classroom mode, the doctor), as the whole screen and also under a window manager:
#   TS_SCREENSHOTS=DIR xvfb-run -a -s "-screen 0 1280x720x24" build/tests/ts_gui_test_screen_tour
#   xvfb-run -a -s "-screen 0 1280x720x24" sh -c 'openbox & sleep 1; TS_SCREENSHOTS=DIR build/tests/ts_gui_test_screen_tour'
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
OUT=${1:-$BUILD_DIR/screenshots}
SESSION=${SESSION:-tests/data/gpu_b128_nw4.tsession}
shared_trace=../shared/cases/traces/kineto_2021-06_resnet50_nw4_memory.pt.trace.json.gz
TRACE=${TRACE:-$([ -f "$shared_trace" ] && echo "$shared_trace" || echo tests/data/traces/kineto_small.json)}
SIZES=${SIZES:-1280x720 1366x768 1920x1080 1920x1080@1.25}
if [ ! -x "$BUILD_DIR/app/trainscope" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release ${TRAINSCOPE_CMAKE_ARGS:-}
  cmake --build "$BUILD_DIR" --target trainscope
fi
mkdir -p "$OUT"
# shot SCENE SIZE[@SCALE] ARGS...: one window, fresh settings, pictures into OUT/SCENE-SIZE.
shot() {
  local scene=$1 size=$2; shift 2
  local geometry=${size%@*} scale=1 dir="$OUT/$scene-${size/@/-x}"
  [[ $size == *@* ]] && scale=${size#*@}
  local config; config=$(mktemp -d)
  mkdir -p "$dir"
  XDG_CONFIG_HOME="$config" QT_SCALE_FACTOR=$scale timeout 300 \
    xvfb-run -a -s "-screen 0 ${geometry}x24" "$BUILD_DIR/app/trainscope" "$@" --screenshots "$dir" --quit-when-done \
    >"$dir/log.txt" 2>&1 || echo "screenshots: $scene at $size failed (see $dir/log.txt)" >&2
  rm -rf "$config"
}
for size in $SIZES; do
  shot session "$size" "$SESSION"
  shot trace "$size" "$TRACE"
  shot train "$size" --autorun --device cpu --epochs "${EPOCHS:-2}" --limit-train 2560 --num-workers 2
done
ls -l "$OUT"/*/*.png
