#!/usr/bin/env bash
# TrainScope's one set-up script (Debian 12, as root or with sudo).
#   scripts/bootstrap.sh run    install packages, build, run the main job on the embedded default
#                               (the GUI where there is a display and it is built, else the headless
#                               runner on TrainScope's generated sample set)
#   scripts/bootstrap.sh test   install packages, build everything, run all tests (ctest)
#   scripts/bootstrap.sh deps   install packages only
# Environment: BUILD_DIR (default build), TRAINSCOPE_CMAKE_ARGS (extra -D options), JOBS.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-run}
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}

# Debian packages: toolchain, Qt 6 + QCustomPlot + libarchive (GUI), oneDNN (CPU backend), GoogleTest, and the
# libraries the core uses (RapidJSON, CLI11, fmt, SQLite, zstd, zlib). CUDA 13, cuDNN, cuBLAS and
# CUPTI come from NVIDIA's toolkit under /usr/local/cuda (not from Debian).
PACKAGES=(build-essential cmake ninja-build ccache pkg-config
  qt6-base-dev libqt6sql6-sqlite libqcustomplot-dev libqcustomplot2.1-qt6
  libdnnl-dev libgtest-dev rapidjson-dev libcli11-dev libfmt-dev
  libsqlite3-dev sqlite3 libzstd-dev zlib1g-dev libarchive-dev xvfb xauth)

install_deps() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  echo "bootstrap: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
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
    configure_and_build
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
  *) echo "usage: $0 run|test|deps" >&2; exit 2 ;;
esac
