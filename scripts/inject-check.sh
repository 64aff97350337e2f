#!/usr/bin/env bash
# The injection library's checks on the H200 (docs/profile-a-program.md):
#   scripts/inject-check.sh STAGE OUT
# STAGE holds trainscope-run, libtrainscope_inject.so, ts_inject_cuda_program, seed_train.py and
# pytorch_seed_cnn.py (build: preset gpu-h200, targets trainscope-run trainscope_inject
# ts_inject_cuda_program; see the report / docs). OUT receives logs, analyses, small sessions and
# summary.txt (sessions over 15 MB are removed after their analysis).
# Parts (PARTS="smoke overhead kinds cost verdicts kineto torchprof signals programs rank"; default all but cost):
#   smoke     seed_train.py --nvtx under trainscope-run, --analyze of the session
#   overhead  --data-on-gpu --no-item --batch-size 128: img/s without the library, lean, full; 3
#             alternated rounds, median of the ratios (target: lean <= 10 % slower)
#   kinds     the same run with one CUPTI activity kind at a time (TRAINSCOPE_INJECT_KINDS), and nvtx mode
#   verdicts  --num-workers 0 / 8, --data-on-gpu, --data-on-gpu --batch-size 16 (full mode: launch-bound)
#             VERDICT_SPECS ("tag:--knobs;..."), VERDICT_MODES ("lean full"; NAME=KIND,KIND sets TRAINSCOPE_INJECT_KINDS)
#   kineto    the verdicts' knobs under torch.profiler alone (no TrainScope); --analyze of each trace
#   torchprof seed_train.py --torch-profiler under trainscope-run, lean (TrainScope holds CUPTI) and
#             --inject-mode nvtx (torch.profiler keeps it); the Kineto trace analysed beside the session
#   signals   Ctrl-C (SIGINT to the process group) and SIGTERM mid-run (after the first kernels reached
#             the file): readable sessions
#   cost      scripts/inject_cost.py: each configuration (nvtx, kernels only, lean, lean without
#             samplers, flush period, full) in alternated rounds (ROUNDS, default 3)
#   programs  ts_inject_cuda_program: normal, exits at once, crashes, subscribes to CUPTI itself; a
#             program that is not a CUDA program (sleep)
#   rank      RANK=1 WORLD_SIZE=2: the session is named ...-rank1
# Environment: PYTHON (default /opt/torch/.venv/bin/python), LIMIT (images per epoch, default 50000).
set -uo pipefail
STAGE=$(cd "${1:?usage: inject-check.sh STAGE OUT}" && pwd)
OUT=${2:?usage: inject-check.sh STAGE OUT}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
PY=${PYTHON:-/opt/torch/.venv/bin/python}
LIMIT=${LIMIT:-50000}
PARTS=${PARTS:-smoke overhead kinds verdicts kineto torchprof signals programs rank}
ROUNDS=${ROUNDS:-3}
NV=$(dirname "$(dirname "$PY")")/lib/python3.12/site-packages/nvidia
export LD_LIBRARY_PATH="$STAGE:$NV/cu13/lib:$NV/cudnn/lib:$NV/cublas/lib:$NV/nccl/lib:/usr/local/cuda-13.0/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
# A stage from the normal build (stage-inject.sh BUILD=build) brings its other libraries (oneDNN, fmt,
# ...) in qt.tar.xz.
if [ -f "$STAGE/qt.tar.xz" ]; then
  [ -d /tmp/qt/lib ] || { mkdir -p /tmp/qt && tar -xJf "$STAGE/qt.tar.xz" -C /tmp/qt; }
  export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:/tmp/qt/lib"
fi
export TRAINSCOPE_INJECT_LIB="$STAGE/libtrainscope_inject.so"
RUN="$STAGE/trainscope-run"
SEED="$STAGE/seed_train.py"
SUM="$OUT/summary.txt"
: >"$SUM"
say() { echo "$*" | tee -a "$SUM"; }
has() { [[ " $PARTS " == *" $1 "* ]]; }

# The session's tables and the meta that say what was recorded (python's sqlite3: no sqlite3 shell needed).
inspect() {
  "$PY" - "$1" <<'EOF' 2>&1 | tee -a "$SUM"
import sqlite3, sys
p = sys.argv[1]
try:
    db = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
    n = {t: db.execute(f"select count(*) from {t}").fetchone()[0]
         for t in ("kernels", "memcpys", "memsets", "syncs", "runtime_calls", "memory_events", "host_ranges", "steps")}
    m = dict(db.execute("select key, value from meta"))
    d = dict(db.execute("select source, count from dropped"))
    print(f"  {p.split('/')[-1]}: " + " ".join(f"{k}={v}" for k, v in n.items()) + f" dropped={d}")
    for k in ("inject.status", "inject.mode", "gpu_activity", "steps.rule", "steps.note", "cupti.path", "device.name",
              "distributed.rank", "inject.kinds_refused", "nvtx", "nvtx.open_at_exit"):
        if k in m: print(f"    {k}: {m[k]}")
except Exception as e:
    print(f"  {p}: NOT READABLE: {e}")
EOF
}

analyze() {  # SESSION NAME: text and JSON analyses into OUT
  "$RUN" --analyze "$1" >"$OUT/$2.analysis.txt" 2>&1
  say "  --analyze exit $?: $(grep -E '^analysed|^steps:|^verdict|GPU metrics' "$OUT/$2.analysis.txt" | tr '\n' ' ' | cut -c1-600)"
  "$RUN" --analyze "$1" --json >"$OUT/$2.analysis.json" 2>/dev/null
}

ips() {  # the last epoch's images_per_s in a log (0 when the run printed none: see its log)
  local v
  v=$(grep -o '"images_per_s": [0-9]*' "$1" | tail -1 | grep -o '[0-9]*$')
  echo "${v:-0}"
}

slower() {  # 1 - V/BASE as a fraction, "n/a" when either is 0
  "$PY" -c "import sys; v, b = float(sys.argv[1]), float(sys.argv[2]); print(f'{1 - v / b:.4f}' if v > 0 and b > 0 else 'n/a')" "$1" "$2"
}

keep_small() { for f in "$@"; do [ -f "$f" ] && [ "$(stat -c %s "$f")" -gt 15000000 ] && rm -f "$f" && say "  (removed $f: over 15 MB)"; done; true; }

say "== environment"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | tee -a "$SUM"
"$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1 | tee -a "$SUM"
ls "$NV"/cu13/lib/libcupti* /usr/local/cuda-13.0/targets/x86_64-linux/lib/libcupti.so.13* 2>&1 | tee -a "$SUM"

if has smoke; then
  say "== smoke: trainscope-run -- python3 seed_train.py --nvtx --data-on-gpu"
  "$RUN" --session "$OUT/smoke.tsession" -- "$PY" "$SEED" --nvtx --data-on-gpu --limit 20000 >"$OUT/smoke.log" 2>&1
  say "  exit $?: $(tail -3 "$OUT/smoke.log" | tr '\n' ' ')"
  inspect "$OUT/smoke.tsession"; analyze "$OUT/smoke.tsession" smoke
  say "== smoke without --nvtx (steps: one-second windows), full mode"
  "$RUN" --session "$OUT/smoke-windows.tsession" --inject-mode full -- "$PY" "$SEED" --data-on-gpu --limit 50000 --epochs 6 \
    >"$OUT/smoke-windows.log" 2>&1
  say "  exit $?: $(tail -1 "$OUT/smoke-windows.log")"
  inspect "$OUT/smoke-windows.tsession"; analyze "$OUT/smoke-windows.tsession" smoke-windows
  keep_small "$OUT/smoke.tsession" "$OUT/smoke-windows.tsession"
fi

# One timed run: MODE is none | lean | full | kinds:K1,K2 | nvtx. Prints img/s of the last epoch.
timed() {
  local mode=$1 tag=$2 log="$OUT/timing-$2.log"
  local args=(--data-on-gpu --no-item --batch-size 128 --epochs 2 --limit "$LIMIT")
  case $mode in
    none) "$PY" "$SEED" "${args[@]}" >"$log" 2>&1 ;;
    kinds:*) TRAINSCOPE_INJECT_KINDS=${mode#kinds:} "$RUN" --session "$OUT/t-$tag.tsession" -- "$PY" "$SEED" "${args[@]}" >"$log" 2>&1 ;;
    *) "$RUN" --session "$OUT/t-$tag.tsession" --inject-mode "$mode" -- "$PY" "$SEED" "${args[@]}" >"$log" 2>&1 ;;
  esac
  ips "$log"
}

if has overhead; then
  say "== overhead: seed_train.py --data-on-gpu --no-item --batch-size 128 (epoch 2 img/s), 3 alternated rounds"
  declare -a RL RF
  for round in 1 2 3; do
    b=$(timed none "base$round"); l=$(timed lean "lean$round"); f=$(timed full "full$round"); b2=$(timed none "base${round}b")
    base=$(( (b + b2) / 2 ))
    RL+=("$(slower "$l" "$base")"); RF+=("$(slower "$f" "$base")")
    say "  round $round: no library $b / $b2 img/s, lean $l (-${RL[-1]}), full $f (-${RF[-1]})"
  done
  median() { "$PY" -c "import statistics as s, sys; v = [float(x) for x in sys.argv[1:] if x != 'n/a']; print(s.median(v) if v else 'n/a')" "$@"; }
  say "  median slowdown: lean $(median "${RL[@]}"), full $(median "${RF[@]}") (fractions; target lean <= 0.10)"
  inspect "$OUT/t-lean3.tsession"; inspect "$OUT/t-full3.tsession"
  analyze "$OUT/t-lean3.tsession" overhead-lean; analyze "$OUT/t-full3.tsession" overhead-full
  rm -f "$OUT"/t-lean1.tsession "$OUT"/t-lean2.tsession "$OUT"/t-full1.tsession "$OUT"/t-full2.tsession
  keep_small "$OUT"/t-*.tsession
fi

if has cost; then
  say "== cost of each configuration, $ROUNDS alternated rounds (scripts/inject_cost.py)"
  "$PY" "$(dirname "$0")/inject_cost.py" --run "$RUN" --seed "$SEED" --out "$OUT/cost" --rounds "$ROUNDS" \
    --limit "$LIMIT" --epochs "${COST_EPOCHS:-4}" ${COST_CONFIGS:+--configs "$COST_CONFIGS"} ${COST_CPUS:+--cpus "$COST_CPUS"} 2>&1 | tee -a "$SUM"
fi

if has kinds; then
  say "== cost of each activity kind alone (same run; one round, against a fresh baseline)"
  b=$(timed none kbase)
  say "  no library: $b img/s"
  for k in CONCURRENT_KERNEL MEMCPY MEMSET SYNCHRONIZATION MEMORY2 OVERHEAD RUNTIME SYNC_CALLS; do
    v=$(timed "kinds:$k" "k-$k")
    say "  $k alone: $v img/s (-$(slower "$v" "$b"))"
  done
  v=$(timed nvtx k-nvtx); say "  nvtx mode (no CUPTI): $v img/s (-$(slower "$v" "$b"))"
  rm -f "$OUT"/t-k-*.tsession
fi

if has verdicts; then
  say "== verdicts on real knobs (--nvtx; --limit 20000)"
  IFS=';' read -r -a vspecs <<<"${VERDICT_SPECS:-w0:--num-workers 0;w8:--num-workers 8;gpu:--data-on-gpu;gpu-b16:--data-on-gpu --batch-size 16}"
  for spec in "${vspecs[@]}"; do
    tag=${spec%%:*} knobs=${spec#*:}
    for mspec in ${VERDICT_MODES:-lean full}; do  # a mode, or NAME=KIND,KIND (TRAINSCOPE_INJECT_KINDS)
      mode=${mspec%%=*} kinds=${mspec#*=} margs=()
      if [ "$kinds" = "$mspec" ]; then margs=(--inject-mode "$mode"); kinds=""; fi
      # shellcheck disable=SC2086
      TRAINSCOPE_INJECT_KINDS=$kinds "$RUN" --session "$OUT/v-$tag-$mode.tsession" "${margs[@]}" -- "$PY" "$SEED" --nvtx $knobs \
        --limit 20000 >"$OUT/v-$tag-$mode.log" 2>&1
      say "  $knobs ($mode): exit $? $(ips "$OUT/v-$tag-$mode.log") img/s"
      analyze "$OUT/v-$tag-$mode.tsession" "v-$tag-$mode"
      ls "$OUT"/v-"$tag"-"$mode"-pid*.tsession >/dev/null 2>&1 && say "  UNEXPECTED: a worker process wrote a session"
      keep_small "$OUT/v-$tag-$mode.tsession"
    done
  done
fi

if has kineto; then
  say "== the same knobs under torch.profiler alone (its Kineto trace of steps 2-6), analysed by TrainScope"
  IFS=';' read -r -a kspecs <<<"${KINETO_SPECS:-w0:--num-workers 0;w8:--num-workers 8;gpu:--data-on-gpu;gpu-b16:--data-on-gpu --batch-size 16}"
  for spec in "${kspecs[@]}"; do
    tag=${spec%%:*} knobs=${spec#*:}
    rm -rf "$OUT/kt-$tag"
    # shellcheck disable=SC2086
    "$PY" "$SEED" --nvtx $knobs --limit 20000 --torch-profiler "$OUT/kt-$tag" >"$OUT/kt-$tag.log" 2>&1
    say "  $knobs: exit $? $(ips "$OUT/kt-$tag.log") img/s (torch.profiler on for steps 2-6 only)"
    trace=$(ls "$OUT"/kt-"$tag"/*.json* 2>/dev/null | head -1)
    if [ -n "$trace" ]; then
      analyze "$trace" "kt-$tag"
      keep_small "$trace"
    else
      say "  no trace written: $(tail -2 "$OUT/kt-$tag.log" | tr '\n' ' ')"
    fi
  done
fi

if has torchprof; then
  say "== torch.profiler inside the program"
  for mode in lean nvtx; do
    rm -rf "$OUT/tp-$mode"
    "$RUN" --session "$OUT/tp-$mode.tsession" --inject-mode $mode -- "$PY" "$SEED" --nvtx --data-on-gpu --limit 10000 \
      --torch-profiler "$OUT/tp-$mode" >"$OUT/tp-$mode.log" 2>&1
    say "  --inject-mode $mode: exit $?; $(grep -i -m3 -E 'cupti|subscriber|trainscope' "$OUT/tp-$mode.log" | tr '\n' ' ')"
    inspect "$OUT/tp-$mode.tsession"; analyze "$OUT/tp-$mode.tsession" "tp-$mode"
    trace=$(ls "$OUT"/tp-"$mode"/*.json* 2>/dev/null | head -1)
    if [ -n "$trace" ]; then
      "$RUN" --analyze "$trace" >"$OUT/tp-$mode.trace-analysis.txt" 2>&1
      say "  its Kineto trace: $(grep -E '^analysed|^verdict|GPU metrics' "$OUT/tp-$mode.trace-analysis.txt" | tr '\n' ' ' | cut -c1-400)"
      keep_small "$trace"
    fi
  done
fi

if has signals; then
  say "== Ctrl-C and SIGTERM during a run, sent once the session holds kernels (as a user would, mid-run)"
  # SESSION SIGNAL LOG ARGS...: the run in a process group of its own (setsid), the signal to the whole
  # group as a terminal's Ctrl-C does, 3 s after the session's first kernels reached the file.
  mid_run() {
    local session=$1 sig=$2 log=$3; shift 3
    setsid "$RUN" --session "$session" -- "$PY" "$SEED" "$@" >"$log" 2>&1 &
    local pid=$! waited=0
    until "$PY" -c "import sqlite3,sys; db=sqlite3.connect(f'file:{sys.argv[1]}?mode=ro', uri=True); sys.exit(0 if db.execute('select count(*) from kernels').fetchone()[0] > 0 else 1)" "$session" 2>/dev/null; do
      sleep 0.5; waited=$((waited + 1))
      { [ $waited -gt 120 ] || ! kill -0 "$pid" 2>/dev/null; } && break
    done
    say "  first kernels in the file after ~$((waited / 2)) s; $sig in 3 s"
    sleep 3
    kill -s "$sig" -- -"$pid" 2>/dev/null
    wait "$pid"
  }
  mid_run "$OUT/ctrlc.tsession" INT "$OUT/ctrlc.log" --nvtx --num-workers 2 --epochs 50
  say "  SIGINT: exit $? $(tail -2 "$OUT/ctrlc.log" | tr '\n' ' ' | cut -c1-300)"
  inspect "$OUT/ctrlc.tsession"; analyze "$OUT/ctrlc.tsession" ctrlc
  mid_run "$OUT/term.tsession" TERM "$OUT/term.log" --nvtx --data-on-gpu --epochs 50
  say "  SIGTERM: exit $? $(tail -1 "$OUT/term.log" | cut -c1-300)"
  inspect "$OUT/term.tsession"; analyze "$OUT/term.tsession" term
  keep_small "$OUT/ctrlc.tsession" "$OUT/term.tsession"
fi

if has programs; then
  say "== small programs"
  P="$STAGE/ts_inject_cuda_program"
  for spec in "normal:--steps 200" "at-once:--steps 0 --exit 4" "crash:--steps 1000000 --crash-at 30000" "cupti:--steps 50 --cupti" \
              "full:--steps 200"; do
    tag=${spec%%:*} pargs=${spec#*:} mode=lean
    [ "$tag" = full ] && mode=full
    # shellcheck disable=SC2086
    "$RUN" --session "$OUT/p-$tag.tsession" --inject-mode $mode -- "$P" $pargs >"$OUT/p-$tag.log" 2>&1
    say "  $tag ($pargs): exit $? $(tr '\n' ' ' <"$OUT/p-$tag.log" | cut -c1-400)"
    inspect "$OUT/p-$tag.tsession"; analyze "$OUT/p-$tag.tsession" "p-$tag"
  done
  "$(dirname "$0")/../tests/inject/gpu_program_check.sh" "$RUN" "$TRAINSCOPE_INJECT_LIB" "$P" "$OUT/gpu-check" \
    >"$OUT/gpu-check.log" 2>&1
  say "  tests/inject/gpu_program_check.sh (the ctest inject.gpu_program): exit $? $(tail -1 "$OUT/gpu-check.log")"
  rm -rf "$OUT/gpu-check"
  TRAINSCOPE_NOTICE_AFTER_S=3 "$RUN" --session "$OUT/p-sleep.tsession" -- /bin/sleep 5 >"$OUT/p-sleep.log" 2>&1
  say "  not a CUDA program (sleep 5): exit $? $(tr '\n' ' ' <"$OUT/p-sleep.log" | cut -c1-400)"
  inspect "$OUT/p-sleep.tsession"
fi

if has rank; then
  say "== rank naming (RANK=1 WORLD_SIZE=2)"
  RANK=1 WORLD_SIZE=2 "$RUN" --session "$OUT/rank.tsession" -- "$PY" "$SEED" --data-on-gpu --limit 5000 >"$OUT/rank.log" 2>&1
  say "  exit $?: $(ls "$OUT"/rank*.tsession | tr '\n' ' ')"
  inspect "$OUT/rank-rank1.tsession"
fi
say "== done"
