#!/usr/bin/env bash
# Records every corpus program under trainscope-run, analyses it and judges the verdicts.
#
#   bench/programs/run_corpus.sh BIN_DIR OUT_DIR     trainscope-run from BIN_DIR (with libtrainscope_inject.so)
#   bench/programs/run_corpus.sh --smoke [OUT_DIR]   each program with --smoke, no TrainScope (do they run?)
#
# Per program NAME: OUT_DIR/NAME.tsession, NAME.log (program + runner output), NAME.rc (exit code),
# NAME.json (--analyze --json), NAME.txt (--analyze); then bench/programs/judge.py OUT_DIR prints the
# table and gives the exit code (1 if any program fails its EXPECT / NOT / HOST_FRAME lines).
# Environment:
#   ONLY=a,b       run these programs only (names without .py)
#   PYTHON=...     the interpreter (default python3)
#   MODE=full      --inject-mode (default lean, the product default; full also records every CUDA
#                  runtime call, so launch_bound uses the launch calls instead of the gaps)
#   TS_ARGS="..."  more trainscope-run options, before the "--"
#   PROG_ARGS="..."  more options for every program (e.g. "--epochs 1" for a quick look)
#   TIMEOUT=300    seconds per program
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
PYTHON=${PYTHON:-python3}
TIMEOUT=${TIMEOUT:-300}

# PyTorch's own CUDA 13 libraries first (docs: /work/shared/GPU.md), when they are there.
for d in /opt/torch/.venv/lib/python3.12/site-packages/nvidia/{cu13,cudnn,nccl}/lib; do
  [ -d "$d" ] && LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}

programs() {
  if [ -n "${ONLY:-}" ]; then tr ',' '\n' <<<"$ONLY"; return; fi
  for f in "$HERE"/*.py; do
    n=$(basename "$f" .py)
    case "$n" in judge | test_judge) continue ;; esac
    grep -q '^EXPECT:\|^NOT:' "$f" && echo "$n"
  done
}

if [ "${1:-}" = "--smoke" ]; then
  OUT=${2:-}
  [ -n "$OUT" ] && mkdir -p "$OUT"
  fail=0
  for n in $(programs); do
    t0=$(date +%s%N)
    if [ -n "$OUT" ]; then
      timeout "$TIMEOUT" "$PYTHON" "$HERE/$n.py" --smoke >"$OUT/$n.smoke.log" 2>&1; rc=$?
    else
      timeout "$TIMEOUT" "$PYTHON" "$HERE/$n.py" --smoke >/dev/null 2>"/tmp/smoke.$$.err"; rc=$?
    fi
    ms=$((($(date +%s%N) - t0) / 1000000))
    if [ $rc -eq 0 ]; then
      printf '%-28s ok    %d.%01d s\n' "$n" $((ms / 1000)) $((ms % 1000 / 100))
    else
      printf '%-28s FAIL  %d.%01d s (exit %d)\n' "$n" $((ms / 1000)) $((ms % 1000 / 100)) "$rc"; fail=1
      if [ -n "$OUT" ]; then tail -5 "$OUT/$n.smoke.log"; else tail -5 "/tmp/smoke.$$.err"; fi
    fi
  done
  rm -f "/tmp/smoke.$$.err"
  exit $fail
fi

if [ $# -ne 2 ]; then
  sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
BIN=$1
OUT=$2
RUN="$BIN/trainscope-run"
[ -x "$RUN" ] || { echo "run_corpus: no $RUN" >&2; exit 2; }
mkdir -p "$OUT"
MODE=${MODE:-lean}
# shellcheck disable=SC2086
for n in $(programs); do
  echo "== $n"
  rm -f "$OUT/$n".tsession* "$OUT/$n"-pid*.tsession* "$OUT/$n"-rank*.tsession*
  t0=$(date +%s)
  timeout "$TIMEOUT" "$RUN" --session "$OUT/$n.tsession" --inject-mode "$MODE" ${TS_ARGS:-} -- \
    "$PYTHON" "$HERE/$n.py" ${PROG_ARGS:-} >"$OUT/$n.log" 2>&1
  rc=$?
  echo "$rc" >"$OUT/$n.rc"
  echo "   exit $rc after $(($(date +%s) - t0)) s; last lines:"
  tail -3 "$OUT/$n.log" | sed 's/^/   | /'
  "$RUN" --analyze "$OUT/$n.tsession" --json >"$OUT/$n.json" 2>"$OUT/$n.analyze.err" ||
    echo "   --analyze --json failed: $(tail -1 "$OUT/$n.analyze.err")"
  "$RUN" --analyze "$OUT/$n.tsession" >"$OUT/$n.txt" 2>&1 || true
  grep '^verdict' "$OUT/$n.txt" | sed 's/^/   /'
done
echo
"$PYTHON" "$HERE/judge.py" "$OUT" ${ONLY:+--only "$ONLY"}
