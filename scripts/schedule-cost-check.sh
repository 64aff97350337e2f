#!/usr/bin/env bash
# What a scheduled profile costs and whether its windows read right, on the GPU machine (one device
# call, ~5 minutes at ROUNDS=3). Stage trainscope-run and its libraries as scripts/stage-inject.sh does (BUILD=build)
# and CIFAR-10 with ../shared/tools/stage-cifar.sh quick; then, there:
#   scripts/schedule-cost-check.sh STAGE "$OUT" [ROUNDS]
# 1. ROUNDS (5) alternated rounds at b128 fp32 and b2048 bf16 (CUDA graphs, 6 epochs of 50k, 4 workers, pinned,
#    taskset 2-11), one after another in each round: unprofiled, every kernel of every step traced
#    (--profile-every-kernel), a schedule (10-12 % of the steps in windows; CUPTI paused between them), and the
#    hybrid default of a profiled CUDA-graph run (kernels in 20-step windows every 200 steps, whole graph replays
#    between: profiler.h). Prints img/s and each ratio to the unprofiled run of its round.
# 2. --analyze of the last round's sessions, every-kernel, scheduled and hybrid: their verdicts should agree;
#    the hybrid's "GPU busy over the run" counts its graph replays.
# 3. The convolution choice of each unprofiled run (TRAINSCOPE_CONV_LOG=1) in OUT/conv-*.log: b128's
#    unprofiled runs came at 233k or ~276k img/s, one level per algorithm mix.
set -uo pipefail
S=$(cd "${1:?stage folder}" && pwd); OUT=${2:?output folder}; ROUNDS=${3:-5}; mkdir -p "$OUT"
cd "$(dirname "$0")/.."
for d in /opt/torch/.venv/lib/python3.12/site-packages/nvidia/{cu13,cudnn,nccl}/lib /usr/local/cuda-13.0/targets/x86_64-linux/lib; do
  [ -d "$d" ] && LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
export LD_LIBRARY_PATH="$S:${LD_LIBRARY_PATH:-}"
C=~/cifar
source bench/cifar_links.sh
device_cifar $C
run() { taskset -c 2-11 "$S/trainscope-run" "$@"; }
ips() { awk '/^epoch [0-9]+\//{split($2,e,"/"); if (e[1] > 1) for (i=1;i<NF;i++) if ($i=="images/s") {s+=$(i+1); n++}}
             END {if (n) printf "%.0f\n", s/n; else print 0}'; }
# All epochs (the first too: a hybrid run's first window lies in it): images over training seconds.
ips_all() { awk '/^epoch [0-9]+\//{for (i=1;i<NF;i++) {if ($i=="images/s") v=$(i+1); if ($i=="(train") t=$(i+1)} s+=v*t; n+=t}
                 END {if (n) printf "%.0f\n", s/n; else print 0}'; }
common=(--device cuda --data ~/cifar5 --epochs 6 --quiet --num-workers 4 --pin-memory)
for r in $(seq 1 "$ROUNDS"); do
  for b in 128 2048; do
    if [ $b = 128 ]; then A=(--batch-size 128); SCH=wait=180,warmup=0,active=20
    # 25 steps an epoch at b2048: a 41-step cycle keeps the windows off the epochs' last (short) steps,
    # where wait=45,active=5 (a 50-step cycle) put every window.
    else A=(--batch-size 2048 --amp bf16); SCH=wait=36,warmup=0,active=5; fi
    TRAINSCOPE_CONV_LOG=1 run "${common[@]}" "${A[@]}" 2> "$OUT/conv-b$b-r$r.log" > "$OUT/e-off"
    run "${common[@]}" "${A[@]}" --overwrite --session "$OUT/full$b.tsession" --profile-every-kernel > "$OUT/e-full"
    run "${common[@]}" "${A[@]}" --overwrite --session "$OUT/sched$b.tsession" --profile-schedule $SCH > "$OUT/e-sched"
    run "${common[@]}" "${A[@]}" --overwrite --session "$OUT/hybrid$b.tsession" > "$OUT/e-hybrid"
    line="round $r b$b"
    for k in off full sched hybrid; do line="$line $k $(ips < "$OUT/e-$k")"; done
    for k in off full sched hybrid; do line="$line $k-all $(ips_all < "$OUT/e-$k")"; done
    echo "$line" | tee -a "$OUT/rounds.txt"
  done
done
python3 - "$OUT/rounds.txt" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
for b in ("b128", "b2048"):
    rs = [r for r in rows if r[2] == b and float(r[4]) > 0]
    for base, what in ((4, "epochs 2-6"), (12, "all epochs")):
        for k, i in (("every kernel", base + 2), ("schedule", base + 4), ("hybrid", base + 6)):
            q = [float(r[i]) / float(r[base]) for r in rs if float(r[base]) > 0]
            if q: print(f"{b} {k:12s} / unprofiled ({what}): median {statistics.median(q):.3f} ({', '.join(f'{x:.3f}' for x in q)})")
PY
for b in 128 2048; do for k in full sched hybrid; do
  run --analyze "$OUT/$k$b.tsession" > "$OUT/$k$b.analyze.txt" 2>&1
  echo "== $k b$b"; grep -E "^analysed|GPU busy|^launches|^verdict" "$OUT/$k$b.analyze.txt"
  sqlite3 "$OUT/$k$b.tsession" "SELECT 'graph replays', COUNT(*), MAX(dur) FROM graph_replays" 2>/dev/null
done; done
rm -f "$OUT"/*.tsession* "$OUT"/e-*
