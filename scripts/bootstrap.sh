#!/usr/bin/env bash
# TrainScope's one set-up script (Debian 12, as root or with sudo).
#   scripts/bootstrap.sh run    install packages, build, run the main job on the embedded default
#                               (the GUI where there is a display and it is built, else the headless
#                               runner on TrainScope's generated sample set)
#   scripts/bootstrap.sh test   install packages, build everything, run all tests (ctest); then build the
#                               Qt-free libraries and their unit and runner tests with ASan+UBSan (the
#                               debug-asan preset, build-asan/) and run those too (names "asan.*");
#                               fails when either run fails. SANITIZE=0 skips the second run.
#   scripts/bootstrap.sh deps   install packages only
#   scripts/bootstrap.sh fuzz [SECONDS [TARGET]]
#                               install clang and its libFuzzer runtime, configure the `fuzz` preset
#                               (build-fuzz/), build TARGET's fuzzer and run it for SECONDS (default 600)
#                               under ASan with its dictionary and seed corpus. TARGET: import (default:
#                               the trace importer, seeds tests/data/traces), session (.tsession files),
#                               model_spec (model-spec JSON), cifar10 (CIFAR-10 binary files), checkpoint
#                               (seeds tests/data/fuzz/TARGET). Prints the last status line (executions
#                               count); crashes land in build-fuzz/artifacts/ (TARGET- prefix but import)
# Environment: BUILD_DIR (default build), TRAINSCOPE_CMAKE_ARGS (extra -D options), JOBS.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache keys on paths relative to the checkout, so a clone in another folder (CI's) reuses the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
mode=${1:-run}
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}

# Debian packages: toolchain, Qt 6 + QCustomPlot + libarchive (GUI), oneDNN (CPU backend), GoogleTest, and the
# libraries the core uses (RapidJSON, CLI11, fmt, SQLite, zstd, zlib, RE2). ocl-icd-opencl-dev is only a
# Recommends of libdnnl-dev, but Debian's oneDNN was built with its OpenCL GPU runtime and its CMake
# config does find_package(OpenCL REQUIRED): without it, configuring fails on a fresh machine. CUDA 13, cuDNN, cuBLAS and
# CUPTI come from NVIDIA's toolkit under /usr/local/cuda (not from Debian).
PACKAGES=(build-essential cmake ninja-build ccache pkg-config
  qt6-base-dev libqt6sql6-sqlite libqcustomplot-dev libqcustomplot2.1-qt6
  libdnnl-dev ocl-icd-opencl-dev libgtest-dev rapidjson-dev libcli11-dev libfmt-dev
  libsqlite3-dev sqlite3 libzstd-dev zlib1g-dev libre2-dev libarchive-dev libsodium-dev xvfb xauth)

# The fuzz mode's extra packages: clang and its runtime libraries (libclang_rt.fuzzer, ASan).
FUZZ_PACKAGES=(clang libclang-rt-dev)

# Installs the given Debian packages that are not installed yet (apt-get update only when needed).
install_packages() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  echo "bootstrap: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

install_deps() { install_packages "${PACKAGES[@]}"; }

# One fuzz target per reader of outside data: its binary, dictionary, seed corpus (files copied into
# build-fuzz/corpus-TARGET, where the fuzzer adds what it finds) and the largest input it makes.
fuzz_target_info() {  # TARGET -> "binary dict seeds max_len"
  case "$1" in
    import) echo "ts_import_fuzzer tests/fuzz/import.dict tests/data/traces 65536" ;;
    nsys) echo "ts_nsys_fuzzer tests/fuzz/nsys.dict tests/data/fuzz/nsys 65536" ;;
    session) echo "ts_session_fuzzer tests/fuzz/session.dict tests/data/fuzz/session 65536" ;;
    model_spec) echo "ts_model_spec_fuzzer tests/fuzz/model_spec.dict tests/data/fuzz/model_spec 16384" ;;
    cifar10) echo "ts_cifar10_fuzzer tests/fuzz/cifar10.dict tests/data/fuzz/cifar10 32768" ;;
    checkpoint) echo "ts_checkpoint_fuzzer tests/fuzz/checkpoint.dict tests/data/fuzz/checkpoint 65536" ;;
    lesson) echo "ts_lesson_fuzzer tests/fuzz/lesson.dict tests/data/fuzz/lesson 16384" ;;
    setup) echo "ts_setup_fuzzer tests/fuzz/setup.dict tests/data/fuzz/setup 16384" ;;
    *) echo "bootstrap: unknown fuzz target '$1' (import, nsys, session, model_spec, cifar10, checkpoint, lesson, setup)" >&2; return 2 ;;
  esac
}

run_fuzzer() {
  local seconds=${1:-600} target=${2:-import} info
  info=$(fuzz_target_info "$target") || return 2
  local binary dict seeds max_len
  read -r binary dict seeds max_len <<<"$info"
  install_deps
  install_packages "${FUZZ_PACKAGES[@]}"
  cmake --preset fuzz
  cmake --build build-fuzz -j "$JOBS" --target "$binary"
  # The trace importer keeps the folder and log names it always had.
  local corpus=build-fuzz/corpus-$target artifacts=build-fuzz/artifacts/$target- log=build-fuzz/fuzz-$target.log
  if [ "$target" = import ]; then corpus=build-fuzz/corpus artifacts=build-fuzz/artifacts/ log=build-fuzz/fuzz.log; fi
  mkdir -p "$corpus" build-fuzz/artifacts
  cp -n "$seeds"/* "$corpus"/ 2>/dev/null || true
  echo "bootstrap: fuzzing $target ($binary) for ${seconds} s (log: $log)"
  set +e
  "build-fuzz/$binary" -max_total_time="$seconds" -max_len="$max_len" -rss_limit_mb=2048 -timeout=25 \
    -dict="$dict" -artifact_prefix="$artifacts" -print_final_stats=1 "$corpus" >"$log" 2>&1
  local rc=$?
  set -e
  grep -E "^#[0-9]+.*(DONE|pulse|NEW|REDUCE)" "$log" | tail -n 1
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$log" || true
  if [ $rc -ne 0 ]; then
    echo "bootstrap: the fuzzer stopped with exit code $rc (see $log and ${artifacts}*)" >&2
    return $rc
  fi
}

# The second half of `test`: the Qt-free libraries, trainscope-run and the unit and runner tests built
# with ASan+UBSan (the debug-asan preset: -O1, no GUI, no CUDA, into build-asan/) and run by ctest;
# their names start with "asan." so the two runs read apart in one log.
run_sanitized_tests() {
  echo "bootstrap: ASan+UBSan build (debug-asan preset, build-asan/) and its tests"
  # Chained with &&: called as `run_sanitized_tests || status=1`, where set -e does not apply.
  cmake --preset debug-asan >/dev/null &&
    cmake --build --preset debug-asan -j "$JOBS" &&
    ctest --preset debug-asan -j "$JOBS" --timeout 900
}

configure_and_build() {
  # shellcheck disable=SC2086
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release ${TRAINSCOPE_CMAKE_ARGS:-}
  cmake --build "$BUILD_DIR" -j "$JOBS" "$@"
}

case "$mode" in
  deps) install_deps ;;
  run)
    install_deps
    # Only the two programs (`test` builds the tests): a few minutes on 2 cores instead of a quarter hour.
    configure_and_build --target trainscope-run
    # grep without -q reads to the end: with -q it stops at the match and ninja dies of SIGPIPE,
    # which pipefail turned into "no window" (a fresh user's trial found the window never built).
    if ninja -C "$BUILD_DIR" -t targets all 2>/dev/null | grep '^trainscope:' >/dev/null; then
      cmake --build "$BUILD_DIR" -j "$JOBS" --target trainscope
    fi
    if [ -n "${DISPLAY:-}" ] && [ -x "$BUILD_DIR/app/trainscope" ]; then
      exec "$BUILD_DIR/app/trainscope"
    fi
    echo "bootstrap: no display (or no GUI build): running the headless runner on the embedded default"
    exec "$BUILD_DIR/app/trainscope-run" --epochs 2
    ;;
  test)
    install_deps
    configure_and_build
    status=0
    (cd "$BUILD_DIR" && ctest --output-on-failure -j "$JOBS" --timeout 900) || status=1
    if [ "${SANITIZE:-1}" != 0 ]; then
      run_sanitized_tests || status=1
    fi
    [ $status -eq 0 ] || echo "bootstrap: tests failed (see the ctest output above)" >&2
    exit $status
    ;;
  fuzz) run_fuzzer "${2:-600}" "${3:-import}" ;;
  *) echo "usage: $0 run|test|deps|fuzz [SECONDS [TARGET]]" >&2; exit 2 ;;
esac
