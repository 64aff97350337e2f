#!/usr/bin/env bash
# The fused Conv2d -> ReLU -> MaxPool2d tail (kernels/pool/fused_pool.h) against the unfused path
# (TRAINSCOPE_FUSED_POOL=0: epilogue + cuDNN pooling), on the GPU machine, in one call:
#   speed:   SimpleCNN at b128 fp32, b1024 bf16 and b2048 bf16 (--num-workers 4 --pin-memory, the
#            runner's defaults otherwise), unfused and fused alternated ROUNDS times; each run's median
#            images/s of epochs 2..EPOCHS (epoch 1 holds cuDNN's algorithm search and the captures);
#            per configuration the median over rounds of each and fused/unfused.
#   kernels: one profiled epoch of each at b1024 bf16 (--session), the pooling and epilogue kernels'
#            time per step and all kernels' time per step, from the sessions (python3's sqlite3).
# Usage: bench/fused_pool.sh RUNNER CIFAR_DIR OUT [EPOCHS=4] [ROUNDS=5] [speed|kernels]...
# CIFAR_DIR: data_batch_1.bin and test_batch.bin at least (batch 1 stands in for batches 2-5).
set -uo pipefail
runner=$1; cifar=$2; out=$3; epochs=${4:-4}; rounds=${5:-5}; shift $(( $# < 5 ? $# : 5 ))
what=${*:-speed kernels}
here=$(cd "$(dirname "$0")" && pwd)
data=$(mktemp -d); trap 'rm -rf "$data"' EXIT
. "$here/cifar_links.sh"
link_cifar "$cifar" "$data"
mkdir -p "$out"
median() { sort -n | awk '{a[NR]=$1} END{if (NR) print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; else print 0}'; }

if [[ " $what " == *" speed "* ]]; then
  for cfg in "128 off" "1024 bf16" "2048 bf16"; do
    set -- $cfg; bs=$1; amp=$2
    for r in $(seq 1 "$rounds"); do
      for fused in 0 1; do
        log="$out/speed_b${bs}_${amp}_f${fused}_r$r.log"
        TRAINSCOPE_FUSED_POOL=$fused "$runner" --device cuda --data "$data" --epochs "$epochs" --batch-size "$bs" \
          --amp "$amp" --num-workers 4 --pin-memory --quiet >"$log" 2>&1
        awk '/^epoch [0-9]+\//{for(i=1;i<=NF;i++) if($i=="images/s") print $(i+1)}' "$log" | tail -n +2 | median \
          >>"$out/ips_b${bs}_${amp}_f$fused.txt"
      done
    done
    u=$(median <"$out/ips_b${bs}_${amp}_f0.txt"); f=$(median <"$out/ips_b${bs}_${amp}_f1.txt")
    printf 'b%-5s %-5s unfused %9.0f img/s  fused %9.0f img/s  fused/unfused %.3f  (rounds: %s | %s)\n' "$bs" "$amp" \
      "$u" "$f" "$(awk -v a="$f" -v b="$u" 'BEGIN{print (b>0)? a/b : 0}')" \
      "$(tr '\n' ' ' <"$out/ips_b${bs}_${amp}_f0.txt")" "$(tr '\n' ' ' <"$out/ips_b${bs}_${amp}_f1.txt")"
  done
fi

if [[ " $what " == *" kernels "* ]]; then
  for fused in 0 1; do
    rm -f "$out/kernels_f$fused.tsession"
    TRAINSCOPE_FUSED_POOL=$fused "$runner" --device cuda --data "$data" --epochs 1 --batch-size 1024 --amp bf16 \
      --num-workers 4 --pin-memory --quiet --session "$out/kernels_f$fused.tsession" >"$out/kernels_f$fused.log" 2>&1
    python3 - "$out/kernels_f$fused.tsession" "$fused" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
steps = max(db.execute("SELECT COUNT(*) FROM steps").fetchone()[0], 1)
total = db.execute("SELECT SUM(dur) FROM kernel_view").fetchone()[0] or 0
print(f"TRAINSCOPE_FUSED_POOL={sys.argv[2]}: {steps} steps, all kernels {total / steps / 1e3:8.1f} us/step")
q = ("SELECT name, COUNT(*), SUM(dur) FROM kernel_view WHERE name LIKE '%pool%' OR name LIKE '%epilogue%' "
     "GROUP BY name ORDER BY SUM(dur) DESC")
for name, calls, dur in db.execute(q):
    print(f"  {dur / steps / 1e3:8.1f} us/step {calls / steps:5.1f}/step  {name[:110]}")
PY
  done
fi
