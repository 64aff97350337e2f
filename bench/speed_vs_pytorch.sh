#!/usr/bin/env bash
# TrainScope beside PyTorch, both measured in this call on this GPU, for batch 128, 512 and 2048 in
# fp32 and bf16:
#   TrainScope: trainscope-run --amp off|bf16, its own loader from host memory (num_workers 4,
#               pin_memory), loss not read every step; median images/s of epochs 2..N (epoch 1 holds
#               cuDNN's algorithm search); eager steps and --cuda-graphs on (the column "TS graphs").
#   PyTorch eager: ../shared/bench/pytorch_seed_cnn.py's resident_{fp32,bf16amp}_b*_noitem (data already
#               on the GPU, cudnn.benchmark, autocast for bf16).
#   PyTorch graph: the same script's cudagraph_step_* (the whole step as one CUDA graph, capturable
#               Adam): it measures b128 fp32/bf16, b512 fp32 and b2048 bf16; a row it does not have is
#               printed as "-", never invented.
# Usage: bench/speed_vs_pytorch.sh RUNNER CIFAR_DIR BASELINE_SCRIPT [EPOCHS]
# CIFAR_DIR needs data_batch_1.bin and test_batch.bin (50,000 training images are made by repeating
# batch 1 when the others are absent, as the baseline does). Prints one table, ratios >= 1.0 favour
# TrainScope.
set -euo pipefail
runner=$1; cifar=$2; baseline=$3; epochs=${4:-4}
here=$(cd "$(dirname "$0")" && pwd)
data=$(mktemp -d); out=$(mktemp -d)
trap 'rm -rf "$data" "$out"' EXIT
. "$here/cifar_links.sh"
link_cifar "$cifar" "$data"
for bs in 128 512 2048; do
  for amp in off bf16; do
    for graphs in off on; do
      log="$out/ts_${amp}_b${bs}_g$graphs"
      "$runner" --device cuda --data "$data" --epochs "$epochs" --batch-size "$bs" --num-workers 4 --pin-memory \
        --amp "$amp" --cuda-graphs "$graphs" --quiet >"$log.log"
      awk '/^epoch [0-9]+\//{for(i=1;i<=NF;i++) if($i=="images/s") print $(i+1)}' "$log.log" | tail -n +2 |
        sort -n | awk '{a[NR]=$1} END{print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}' >"$log.ips"
    done
  done
done
CIFAR_DIR="$cifar" python3 "$here/pytorch_baseline.py" "$baseline" resident '^resident_(fp32|bf16amp)_b(128|512|2048)_noitem$' \
  >"$out/eager.jsonl"
CIFAR_DIR="$cifar" python3 "$here/pytorch_baseline.py" "$baseline" graphs '^cudagraph_step_' >"$out/graph.jsonl"
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
def rows(name):
    r = {}
    for line in open(os.path.join(out, name)):
        try:
            d = json.loads(line)
        except ValueError:
            continue
        if "config" in d and "images_per_s" in d:
            r[d["config"]] = float(d["images_per_s"])
    return r
eager, graph = rows("eager.jsonl"), rows("graph.jsonl")
fmt = lambda v: f"{v / 1e3:8.1f}k" if v else "        -"
ratio = lambda a, b: f"{a / b:6.2f}" if a and b else "     -"
def ips(name):
    p = os.path.join(out, name)
    return float(open(p).read().strip() or 0) if os.path.exists(p) else 0
print("batch  precision  TrainScope   TS graphs   PyTorch eager  PyTorch graph  graphs/TS  TS graphs/eager  TS graphs/graph")
for bs in (128, 512, 2048):
    for amp, tag in (("off", "fp32"), ("bf16", "bf16amp")):
        ts, tg = ips(f"ts_{amp}_b{bs}_goff.ips"), ips(f"ts_{amp}_b{bs}_gon.ips")
        e, g = eager.get(f"resident_{tag}_b{bs}_noitem"), graph.get(f"cudagraph_step_{tag}_b{bs}")
        print(f"{bs:5}  {('fp32' if amp == 'off' else 'bf16'):9}  {fmt(ts)}  {fmt(tg)}  {fmt(e)}      {fmt(g)}      "
              f"{ratio(tg, ts)}     {ratio(tg, e)}           {ratio(tg, g)}")
PY
