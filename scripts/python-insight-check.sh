#!/usr/bin/env bash
# The Python insight on the H200 (docs/profile-a-program.md, "Python insight"):
#   scripts/python-insight-check.sh STAGE OUT
# STAGE: scripts/stage-inject.sh's folder (trainscope-run, libtrainscope_inject.so, trainscope_site,
# seed_train.py, pytorch_seed_cnn.py; qt.tar.xz for a stage of the normal build). OUT: logs,
# analyses, small sessions, summary.txt.
# Parts (PARTS, default "realtorch compat seed corpus cost"):
#   realtorch  tests/inject/python/real_torch_check.py on the real PyTorch (hooks, AMP step, fork and
#              spawn workers, torch.compile, a CUDA graph capture, the wrappers' cost)
#   compat     programs that import no torch, bring their own sitecustomize, use num_workers=8: the
#              same exit code and output with and without trainscope-run
#   seed       seed_train.py --num-workers 0 without --nvtx (steps from optimizer.step) and with
#              --nvtx: the same verdicts; --analyze of each
#   corpus     bench/programs/run_corpus.sh in lean mode (MODE), then full mode for FULL_ONLY
#   cost       scripts/inject_cost.py --configs CONFIGS (default none,lean,lean-nopy; ROUNDS, default 5; pinned to CPUS)
set -uo pipefail
STAGE=$(cd "${1:?usage: python-insight-check.sh STAGE OUT}" && pwd)
OUT=${2:?usage: python-insight-check.sh STAGE OUT}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=${PYTHON:-/opt/torch/.venv/bin/python}
PARTS=${PARTS:-realtorch compat seed corpus cost}
NV=$(dirname "$(dirname "$PY")")/lib/python3.12/site-packages/nvidia
export LD_LIBRARY_PATH="$STAGE:$NV/cu13/lib:$NV/cudnn/lib:$NV/cublas/lib:$NV/nccl/lib:/usr/local/cuda-13.0/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
if [ -f "$STAGE/qt.tar.xz" ]; then
  [ -d /tmp/qt/lib ] || { mkdir -p /tmp/qt && tar -xJf "$STAGE/qt.tar.xz" -C /tmp/qt; }
  export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:/tmp/qt/lib"
fi
export TRAINSCOPE_INJECT_LIB="$STAGE/libtrainscope_inject.so" TRAINSCOPE_PY_SITE="$STAGE/trainscope_site"
RUN="$STAGE/trainscope-run"
SUM="$OUT/summary.txt"
: >"$SUM"
say() { echo "$*" | tee -a "$SUM"; }
has() { [[ " $PARTS " == *" $1 "* ]]; }
verdicts() { "$RUN" --analyze "$1" >"$2" 2>&1; grep -E '^verdict|^steps:|^GPU idle by|where \(Python\)|amp ' "$2" | tee -a "$SUM"; }

if has realtorch; then
  say "== realtorch"
  TRAINSCOPE_PYTHON=lean PYTHONPATH="$STAGE/trainscope_site" "$PY" "$ROOT/tests/inject/python/real_torch_check.py" \
    >"$OUT/realtorch.log" 2>&1
  say "real_torch_check exit $?"; tail -25 "$OUT/realtorch.log" | tee -a "$SUM"
fi

if has compat; then
  say "== compat"
  d=$(mktemp -d)
  printf 'import sys\nprint("plain", sum(range(10)))\nsys.exit(3)\n' >"$d/notorch.py"
  mkdir -p "$d/own" && printf 'import os\nos.environ["OWN_SITE"] = "ran"\n' >"$d/own/sitecustomize.py"
  printf 'import os, torch\nprint("own sitecustomize", os.environ.get("OWN_SITE"))\n' >"$d/ownsite.py"
  for p in notorch ownsite; do
    a=$(cd "$d" && PYTHONPATH="$d/own" "$PY" "$d/$p.py" 2>&1; echo "rc=$?")
    b=$(cd "$d" && PYTHONPATH="$d/own" "$RUN" --session "$OUT/compat-$p.tsession" -- "$PY" "$d/$p.py" 2>/dev/null; echo "rc=$?")
    [ "$a" = "$b" ] && say "compat $p: same output and exit ($(tr '\n' ' ' <<<"$a"))" || say "compat $p: DIFFERS: without [$a] with [$b]"
  done
  a=$("$PY" "$STAGE/seed_train.py" --num-workers 8 --limit 4096 --epochs 1 2>/dev/null | tail -1 | cut -c1-40; echo "rc=${PIPESTATUS[0]}")
  "$RUN" --session "$OUT/compat-w8.tsession" -- "$PY" "$STAGE/seed_train.py" --num-workers 8 --limit 4096 --epochs 1 \
    >"$OUT/compat-w8.log" 2>&1
  say "compat num_workers=8: without TrainScope [$(tr '\n' ' ' <<<"$a")], with it exit $? ($(grep -c . "$OUT/compat-w8.log") lines)"
  verdicts "$OUT/compat-w8.tsession" "$OUT/compat-w8.txt" >/dev/null
fi

if has seed; then
  say "== seed (no NVTX: steps from optimizer.step; then --nvtx)"
  for tag in plain nvtx; do
    extra=""; [ $tag = nvtx ] && extra=--nvtx
    "$RUN" --session "$OUT/seed-w0-$tag.tsession" -- "$PY" "$STAGE/seed_train.py" --num-workers 0 --limit 10000 \
      --epochs 1 $extra >"$OUT/seed-w0-$tag.log" 2>&1
    say "seed w0 $tag: exit $?"
    verdicts "$OUT/seed-w0-$tag.tsession" "$OUT/seed-w0-$tag.txt"
  done
fi

if has corpus; then
  say "== corpus (lean)"
  MODE=${MODE:-lean} PYTHON="$PY" bash "$ROOT/bench/programs/run_corpus.sh" "$STAGE" "$OUT/corpus" >"$OUT/corpus.log" 2>&1
  say "corpus lean exit $?"; sed -n '/^program/,$p' "$OUT/corpus.log" | tee -a "$SUM"
  if [ "${FULL_ONLY:-}" != skip ]; then
    say "== corpus (full: ${FULL_ONLY:-main_thread_loader,small_model_python_bound})"
    MODE=full ONLY=${FULL_ONLY:-main_thread_loader,small_model_python_bound} PYTHON="$PY" \
      bash "$ROOT/bench/programs/run_corpus.sh" "$STAGE" "$OUT/corpus-full" >"$OUT/corpus-full.log" 2>&1
    say "corpus full exit $?"; sed -n '/^program/,$p' "$OUT/corpus-full.log" | tee -a "$SUM"
  fi
  # Sessions over 8 MB stay there (the analyses came back).
  find "$OUT" -name '*.tsession' -size +8M -delete
fi

if has cost; then
  say "== cost"
  "$PY" "$ROOT/scripts/inject_cost.py" --run "$RUN" --seed "$STAGE/seed_train.py" --python "$PY" --out "$OUT/cost" \
    --rounds "${ROUNDS:-5}" --epochs "${EPOCHS:-3}" --limit "${LIMIT:-40000}" --configs "${CONFIGS:-none,lean,lean-nopy}" \
    --cpus "${CPUS:-2-5}" 2>&1 | tail -12 | tee -a "$SUM"
  rm -f "$OUT"/cost/*.tsession*
fi
