#!/usr/bin/env bash
# What a profiled run costs, part by part, on the GPU machine. Each round runs the same training
# unprofiled, profiled with everything, and profiled with one part left out
# (TRAINSCOPE_PROFILE_SKIP, profiling/profiler.h), in turn; a run's speed is the mean images/s of
# its epochs after the first (the first holds cuDNN's autotuning). Ratios are to the unprofiled run
# of the same round; a part's cost is ratio(without it) - ratio(everything), medians over rounds.
# Profiled runs trace every kernel of every step (--profile-every-kernel), as before the hybrid default of
# CUDA-graph runs (profiler.h), so each part is measured against the same recording.
#   bench/profile_cost.sh RUNNER CIFAR_DIR OUT ROUNDS EPOCHS PARTS -- TRAINING ARGS...
# PARTS: ";"-separated configurations, each comma-separated TRAINSCOPE_PROFILE_SKIP values or
# NAME=VALUE[+NAME=VALUE]: an environment to run the profiled run in instead (e.g. TRAINSCOPE_CONV_LOG=1)
#   e.g. "runtime;kernels;copies,syncs,memory;samplers;host;writer;pm;cupti,samplers,host,writer,pm"
set -uo pipefail
runner=$1; cifar=$2; out=$3; rounds=$4; epochs=$5; parts=$6; shift 6
[ "${1:-}" = "--" ] && shift
mkdir -p "$out"
args=(--device cuda --data "$cifar" --epochs "$epochs" --quiet "$@")
ips() {  # mean images/s of epochs 2.. from the runner's epoch lines
  awk '/^epoch [0-9]+\//{split($2,e,"/"); if (e[1] > 1) for (i=1;i<NF;i++) if ($i=="images/s") {s+=$(i+1); n++}}
       END {if (n) printf "%.0f\n", s/n; else print 0}'
}
IFS=';' read -r -a configs <<< "$parts"
: > "$out/runs.txt"
for r in $(seq 1 "$rounds"); do
  off=$("$runner" "${args[@]}" | ips)
  full=$("$runner" "${args[@]}" --overwrite --session "$out/full$r.tsession" --profile-every-kernel | ips)
  echo "round $r off $off full $full" | tee -a "$out/runs.txt"
  for c in "${configs[@]}"; do
    if [[ $c == *=* ]]; then  # NAME=VALUE[+NAME=VALUE]: a measurement knob's environment instead
      v=$(env ${c//+/ } "$runner" "${args[@]}" --overwrite --session "$out/skip.tsession" --profile-every-kernel | ips)
    else
      v=$(TRAINSCOPE_PROFILE_SKIP=$c "$runner" "${args[@]}" --overwrite --session "$out/skip.tsession" --profile-every-kernel | ips)
    fi
    echo "round $r skip=$c $v off $off full $full" >> "$out/runs.txt"
  done
done
python3 - "$out/runs.txt" "$parts" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
full = [float(r[5]) / float(r[3]) for r in rows if r[2] == "off" and float(r[3]) > 0]
print(f"profiled / unprofiled, everything recorded: median {statistics.median(full):.3f} "
      f"(rounds {', '.join(f'{x:.3f}' for x in full)})")
for c in sys.argv[2].split(";"):
    rs = [r for r in rows if r[2] == "skip=" + c and float(r[5]) > 0]
    if not rs: continue
    ratio = [float(r[3]) / float(r[5]) for r in rs]
    cost = [(float(r[3]) - float(r[7])) / float(r[5]) for r in rs]
    print(f"  {'with' if '=' in c else 'without'} {c:40s} ratio {statistics.median(ratio):.3f}  part's cost {statistics.median(cost):+.3f}")
PY
