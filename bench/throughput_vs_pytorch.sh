#!/usr/bin/env bash
# Throughput of trainscope-run vs the PyTorch baseline, both measured in this run on this GPU.
#   TrainScope: b128 fp32, its own loader from host memory (num_workers 4, pin_memory), loss not
#               read every step; median images/s of epochs 2..N (epoch 1 includes cuDNN's algorithm search).
#   PyTorch:    ../shared/bench/pytorch_seed_cnn.py's resident_fp32_b128_noitem (data already on
#               the GPU, eager, cudnn.benchmark) - the script's own number.
# Usage: bench/throughput_vs_pytorch.sh RUNNER CIFAR_DIR BASELINE_SCRIPT [EPOCHS]
# CIFAR_DIR needs data_batch_1.bin; like the baseline, 50,000 training images are made by repeating
# it when the other batches are absent. Prints the two numbers and the ratio (>= 1.0 is the goal).
set -euo pipefail
runner=$1; cifar=$2; baseline=$3; epochs=${4:-4}
here=$(cd "$(dirname "$0")" && pwd)
data=$(mktemp -d)
. "$here/cifar_links.sh"
link_cifar "$cifar" "$data"
ts_log=$("$runner" --device cuda --data "$data" --epochs "$epochs" --batch-size 128 --num-workers 4 --pin-memory --quiet)
echo "$ts_log"
ts_ips=$(echo "$ts_log" | awk '/^epoch [0-9]+\//{for(i=1;i<=NF;i++) if($i=="images/s") print $(i+1)}' | tail -n +2 | sort -n |
  awk '{a[NR]=$1} END{print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}')
pt_line=$(CIFAR_DIR="$cifar" python3 "$here/pytorch_baseline.py" "$baseline" resident '^resident_fp32_b128_noitem$' | grep resident_fp32_b128_noitem)
echo "$pt_line"
pt_ips=$(echo "$pt_line" | python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["images_per_s"])')
python3 - "$ts_ips" "$pt_ips" <<'PY'
import sys
ts, pt = float(sys.argv[1]), float(sys.argv[2])
print(f"throughput b128 fp32: TrainScope {ts:.0f} img/s (own loader, host memory)  "
      f"PyTorch resident_fp32_b128_noitem {pt:.0f} img/s  ratio {ts/pt:.2f}")
PY
rm -rf "$data"
