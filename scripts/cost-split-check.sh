#!/usr/bin/env bash
# What profiling costs, split finer, on the GPU machine (one device call, ~6-8 minutes). Stage first with
# scripts/stage-inject.sh (preset gpu-h200: trainscope-run, libtrainscope_inject.so, trainscope_site, seed_train.py
# in stage/) and ../shared/tools/stage-cifar.sh quick (.devdata; send stage and .devdata). Then, there:
#   scripts/cost-split-check.sh stage "$OUT"
# 1. python_preprocessing (bench/programs) recorded and judged: host_bound's Python line counted whole.
# 2. bench/profile_cost.sh at b128 fp32, eager and with CUDA graphs, 5 rounds of 12 epochs, leaving out
#    MEMCPY, SYNCHRONIZATION and MEMORY2 records one at a time (12-07: the three together cost 0.03-0.05).
# 3. scripts/inject_cost.py, 6 rounds: lean, kernel records alone, and both with TRAINSCOPE_INJECT_DISCARD=1
#    (CUPTI's buffers back unread): CUPTI's own per-kernel cost against the library's.
# Writes OUT/*.txt; prints each part's table. Needs a CUDA GPU, PyTorch, taskset.
set -uo pipefail
S=$(cd "${1:?stage folder}" && pwd); OUT=${2:?output folder}; mkdir -p "$OUT"
cd "$(dirname "$0")/.."
for d in /opt/torch/.venv/lib/python3.12/site-packages/nvidia/{cu13,cudnn,nccl}/lib /usr/local/cuda-13.0/targets/x86_64-linux/lib; do
  [ -d "$d" ] && LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
export LD_LIBRARY_PATH="$S:${LD_LIBRARY_PATH:-}" PATH=/opt/torch/.venv/bin:$PATH
C=~/cifar
source bench/cifar_links.sh
device_cifar $C
printf '#!/bin/sh\nexec taskset -c 2-11 %s/trainscope-run "$@"\n' "$S" > ~/pinned-run && chmod +x ~/pinned-run

ONLY=python_preprocessing TIMEOUT=120 bash bench/programs/run_corpus.sh "$S" "$OUT/corpus" > "$OUT/corpus.txt" 2>&1
tail -4 "$OUT/corpus.txt"; rm -f "$OUT"/corpus/*.tsession*
for g in off on; do
  bash bench/profile_cost.sh ~/pinned-run ~/cifar5 "$OUT/parts-$g" 5 12 "copies;syncs;memory" -- \
    --batch-size 128 --num-workers 4 --pin-memory --cuda-graphs $g > "$OUT/parts-$g.txt" 2>&1
  echo "graphs $g:"; tail -4 "$OUT/parts-$g.txt"; rm -f "$OUT/parts-$g"/*.tsession*
done
CIFAR_DIR=$C python3 scripts/inject_cost.py --run "$S/trainscope-run" --seed "$S/seed_train.py" --out "$OUT/inject" \
  --rounds 6 --epochs 3 --limit 50000 --configs lean,kernel,lean-discard,kernel-discard --cpus 2-5 > "$OUT/inject.txt" 2>&1
tail -6 "$OUT/inject.txt"
