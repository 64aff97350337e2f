#!/usr/bin/env bash
# Where mixed precision loses time on the H200: trainscope-run at b256/b512 in fp32, bf16 and fp16
# on a 50,000-image random CIFAR-10-format set (generated here, no transfer), median img/s of epochs
# 2..E, then one recorded bf16 run whose per-layer host ranges show which call takes the host's time.
#   scripts/amp-stall-check.sh STAGE OUT [EPOCHS]
set -uo pipefail
STAGE=$(cd "${1:?usage: amp-stall-check.sh STAGE OUT}" && pwd); OUT=${2:?}; EPOCHS=${3:-4}
mkdir -p "$OUT"
NV=/opt/torch/.venv/lib/python3.12/site-packages/nvidia
export LD_LIBRARY_PATH="$STAGE:$NV/cu13/lib:$NV/cudnn/lib:$NV/cublas/lib:/usr/local/cuda-13.0/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}"
DATA=${DATA:-/tmp/randcifar}
if [ ! -f "$DATA/test_batch.bin" ]; then
  mkdir -p "$DATA"
  python3 - "$DATA" <<'PY'
import os, sys, random
d = sys.argv[1]; rng = random.Random(0)
for name in [f"data_batch_{i}.bin" for i in range(1, 6)] + ["test_batch.bin"]:
    rec = bytearray()
    for _ in range(10000):
        rec += bytes([rng.randrange(10)]) + os.urandom(3072)
    open(os.path.join(d, name), "wb").write(rec)
PY
fi
RUN="$STAGE/trainscope-run"
for bs in ${BATCHES:-256 512}; do
  for amp in ${AMPS:-off bf16 fp16}; do
    for rep in $(seq 1 ${REPS:-2}); do
      log=$("$RUN" --device cuda --data "$DATA" --epochs "$EPOCHS" --batch-size "$bs" --num-workers 4 --pin-memory --amp "$amp" --quiet 2>&1)
      ips=$(echo "$log" | awk '/^epoch [0-9]+\//{for(i=1;i<=NF;i++) if($i=="images/s") print $(i+1)}' | tail -n +2 | tr '\n' ' ')
      echo "b$bs $amp rep$rep epochs2..: $ips" | tee -a "$OUT/amp.txt"
      echo "$log" | grep -v '^{' | grep -v '^conv ' | tail -3 >>"$OUT/amp.log"
      echo "$log" | grep '^conv ' >"$OUT/conv-b$bs-$amp-rep$rep.log" || true
    done
  done
done
for amp in ${REC_AMPS:-bf16}; do
  "$RUN" --device cuda --data "$DATA" --epochs 2 --batch-size 512 --num-workers 4 --pin-memory --amp $amp --limit-train 20000 \
    --session "$OUT/rec-$amp.tsession" --profile-every-kernel --quiet >"$OUT/rec-$amp.log" 2>&1
  "$RUN" --analyze "$OUT/rec-$amp.tsession" >"$OUT/rec-$amp.txt" 2>&1
  grep -E '^verdict|images/s|GPU busy' "$OUT/rec-$amp.txt" | head -8 | tee -a "$OUT/amp.txt"
  # Which runtime calls and which host ranges hold the host in steps 5.. (the warm-up excluded).
  python3 - "$OUT/rec-$amp.tsession" <<'PY' | tee -a "$OUT/amp.txt"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
t0 = db.execute("SELECT start FROM steps WHERE global_step = 5").fetchone()
t0 = t0[0] if t0 else 0
n = db.execute("SELECT count(*), sum(\"end\" - start) FROM steps WHERE start >= ?", (t0,)).fetchone()
print(f"steps from 5: {n[0]}, {n[1] / 1e6 / max(n[0], 1):.3f} ms/step")
print("runtime calls (name, calls, total ms, max us):")
for r in db.execute("SELECT name, count(*), sum(dur), max(dur) FROM runtime_view WHERE start >= ? "
                    "GROUP BY name ORDER BY sum(dur) DESC LIMIT 10", (t0,)):
    print(f"  {r[0]}: {r[1]}, {r[2] / 1e6:.2f} ms, {r[3] / 1e3:.0f} us")
print("host ranges (kind, name, layer, calls, total ms):")
for r in db.execute("SELECT kind, name, layer, count(*), sum(dur) FROM host_range_view WHERE start >= ? "
                    "GROUP BY kind, name, layer ORDER BY sum(dur) DESC LIMIT 12", (t0,)):
    print(f"  {r[0]} {r[1]} {r[2]}: {r[3]}, {r[4] / 1e6:.2f} ms")
PY
done
