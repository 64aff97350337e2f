#!/usr/bin/env bash
# The live check of File ▸ Profile a program… on the H200: the window (offscreen) starts
# seed_train.py --nvtx through File ▸ Profile a program… (trainscope --profile-program), follows its session live, and prints the
# --live-latency figures (event end -> first paint, median / p95 / max) and what it received against
# the finished file read again ("lost 0"); screenshots during and after the run at each size. Then a
# Stop mid-run (SIGINT from the Program tab's Stop): exit code, a readable session.
#   scripts/program-live-check.sh STAGE OUT
# STAGE: trainscope, trainscope-run, libtrainscope_inject.so, seed_train.py, pytorch_seed_cnn.py and
# qt.tar.xz (../shared/tools/pack-qt-runtime.sh of trainscope and trainscope-run).
# Environment: PYTHON (default /opt/torch/.venv/bin/python), SIZES (default "1280x720 1920x1080").
set -uo pipefail
STAGE=$(cd "${1:?usage: program-live-check.sh STAGE OUT}" && pwd)
OUT=${2:?usage: program-live-check.sh STAGE OUT}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
PY=${PYTHON:-/opt/torch/.venv/bin/python}
NV=$(dirname "$(dirname "$PY")")/lib/python3.12/site-packages/nvidia
mkdir -p /tmp/qt && tar -xJf "$STAGE/qt.tar.xz" -C /tmp/qt
export LD_LIBRARY_PATH="$NV/cu13/lib:$NV/cudnn/lib:$NV/cublas/lib:/usr/local/cuda-13.0/targets/x86_64-linux/lib:/tmp/qt/lib:${LD_LIBRARY_PATH:-}"
export QT_PLUGIN_PATH=/tmp/qt/plugins QT_QPA_PLATFORM=offscreen FONTCONFIG_FILE=/tmp/qt/fonts.conf XDG_RUNTIME_DIR=/tmp
export TRAINSCOPE_RUNNER="$STAGE/trainscope-run" TRAINSCOPE_INJECT_LIB="$STAGE/libtrainscope_inject.so"
SUM="$OUT/summary.txt"
: >"$SUM"
say() { echo "$*" | tee -a "$SUM"; }
window() {  # TAG ARGS...: the window with ARGS, its log in OUT/TAG.log, the lines that matter in the summary
  local tag=$1; shift
  timeout 300 "$STAGE/trainscope" "$@" --screenshots "$OUT/shots-$tag" --quit-when-done >"$OUT/$tag.log" 2>&1
  say "  $tag: window exit $?"
  grep -E "live latency|followed /|the profiled program|^trainscope:|not read" "$OUT/$tag.log" | sed 's/^/    /' | tee -a "$SUM"
  grep "program| .*images_per_s" "$OUT/$tag.log" | tail -1 | sed 's/^/    /' | tee -a "$SUM"
}
for size in ${SIZES:-1280x720 1920x1080}; do
  say "== seed_train.py --nvtx (num_workers 4, 3 epochs of 50k) from the window at $size"
  window "live-$size" --profile-program "$PY $STAGE/seed_train.py --nvtx --epochs 3 --limit 50000" \
    --program-session "$OUT/live-$size.tsession" --live-latency --window-size "$size"
done
say "== Stop after 12 s (seed_train.py --nvtx --data-on-gpu --epochs 50)"
window stop --profile-program "$PY $STAGE/seed_train.py --nvtx --data-on-gpu --epochs 50" \
  --program-session "$OUT/stop.tsession" --live-latency --window-size 1280x720 --stop-after 12
"$PY" - "$OUT/stop.tsession" <<'PY' 2>&1 | tee -a "$SUM"
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
m = dict(db.execute("select key, value from meta"))
print("    stopped session: kernels", db.execute("select count(*) from kernels").fetchone()[0],
      "steps", db.execute("select count(*) from steps").fetchone()[0], "status:", m.get("inject.status"))
PY
for f in "$OUT"/*.tsession; do [ "$(stat -c %s "$f")" -gt 8000000 ] && rm -f "$f"; done
true
