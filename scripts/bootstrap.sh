#!/usr/bin/env bash
# TrainScope's one set-up script (Debian 12, as root or with sudo).
#   scripts/bootstrap.sh run    install packages, build, run the main job on the embedded default
#                               (the GUI where there is a display and it is built, else the headless
#                               runner on TrainScope's generated sample set)
#   scripts/bootstrap.sh test   install packages, build everything, run all tests (ctest)
#   scripts/bootstrap.sh deps   install packages only
#   scripts/bootstrap.sh fuzz [SECONDS]
#                               install clang and its libFuzzer runtime, configure and build the `fuzz`
#                               preset (build-fuzz/), run the trace importer's fuzzer for SECONDS
#                               (default 600) under ASan, seeded with tests/data/traces; prints its
#                               last status line (executions count); crashes land in build-fuzz/artifacts/
# Environment: BUILD_DIR (default build), TRAINSCOPE_CMAKE_ARGS (extra -D options), JOBS.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache keys on paths relative to the checkout, so a clone in another folder (CI's) reuses the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
mode=${1:-run}
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}

# Debian packages: toolchain, Qt 6 + QCustomPlot + libarchive (GUI), oneDNN (CPU backend), GoogleTest, and the
# libraries the core uses (RapidJSON, CLI11, fmt, SQLite, zstd, zlib). ocl-icd-opencl-dev is only a
# Recommends of libdnnl-dev, but Debian's oneDNN was built with its OpenCL GPU runtime and its CMake
# config does find_package(OpenCL REQUIRED): without it, configuring fails on a fresh machine. CUDA 13, cuDNN, cuBLAS and
# CUPTI come from NVIDIA's toolkit under /usr/local/cuda (not from Debian).
PACKAGES=(build-essential cmake ninja-build ccache pkg-config
  qt6-base-dev libqt6sql6-sqlite libqcustomplot-dev libqcustomplot2.1-qt6
  libdnnl-dev ocl-icd-opencl-dev libgtest-dev rapidjson-dev libcli11-dev libfmt-dev
  libsqlite3-dev sqlite3 libzstd-dev zlib1g-dev libarchive-dev xvfb xauth)

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

run_fuzzer() {
  local seconds=${1:-600}
  install_deps
  install_packages "${FUZZ_PACKAGES[@]}"
  cmake --preset fuzz
  cmake --build --preset fuzz -j "$JOBS"
  local corpus=build-fuzz/corpus artifacts=build-fuzz/artifacts/
  mkdir -p "$corpus" "$artifacts"
  cp -n tests/data/traces/*.json "$corpus"/ 2>/dev/null || true
  echo "bootstrap: fuzzing the trace importer for ${seconds} s (log: build-fuzz/fuzz.log)"
  set +e
  build-fuzz/ts_import_fuzzer -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=25 \
    -dict=profiling/fuzz/import.dict -artifact_prefix="$artifacts" -print_final_stats=1 "$corpus" \
    >build-fuzz/fuzz.log 2>&1
  local rc=$?
  set -e
  grep -E "^#[0-9]+.*(DONE|pulse|NEW|REDUCE)" build-fuzz/fuzz.log | tail -n 1
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" build-fuzz/fuzz.log || true
  if [ $rc -ne 0 ]; then
    echo "bootstrap: the fuzzer stopped with exit code $rc (see build-fuzz/fuzz.log and $artifacts)" >&2
    return $rc
  fi
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
    if ninja -C "$BUILD_DIR" -t targets all 2>/dev/null | grep -q '^trainscope:'; then
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
    cd "$BUILD_DIR"
    ctest --output-on-failure -j "$JOBS" --timeout 900
    ;;
  fuzz) run_fuzzer "${2:-600}" ;;
  *) echo "usage: $0 run|test|deps|fuzz [SECONDS]" >&2; exit 2 ;;
esac
