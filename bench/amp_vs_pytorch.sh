#!/usr/bin/env bash
# AMP throughput and memory of trainscope-run vs the PyTorch baseline's autocast rows, both measured
# in this run on this GPU (the AMP acceptance: its accuracy and speed figures).
#   TrainScope: --amp off|fp16|bf16 at b512 and b2048, own loader from host memory (num_workers 4,
#               pin_memory), loss not read every step; median images/s of epochs 2..N (epoch 1
#               includes cuDNN's algorithm search). Peak activation memory from the summary's
#               allocator categories (allocated_bytes.activations: all activations are allocated at
#               construction for max_batch_size, so this is the peak).
#   PyTorch:    ../shared/bench/pytorch_seed_cnn.py's `resident` rows (data already on the GPU, eager,
#               cudnn.benchmark, GradScaler for fp16) resident_{fp32,fp16amp,bf16amp}_b{512,2048}_noitem - the script's
#               own numbers; a row it does not have is printed as missing, never invented.
# Usage: bench/amp_vs_pytorch.sh RUNNER CIFAR_DIR BASELINE_SCRIPT [EPOCHS]
# Prints one line per (precision, batch) with both img/s and the ratio, and the AMP/fp32 memory ratio.
set -euo pipefail
runner=$1; cifar=$2; baseline=$3; epochs=${4:-4}
here=$(cd "$(dirname "$0")" && pwd)
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
. "$here/cifar_links.sh"
link_cifar "$cifar" "$data"
results=$(mktemp)
for bs in 512 2048; do
  for amp in off fp16 bf16; do
    log=$("$runner" --device cuda --data "$data" --epochs "$epochs" --batch-size "$bs" --num-workers 4 --pin-memory \
          --amp "$amp" --quiet)
    echo "$log" | grep -E '^epoch ' >&2
    ips=$(echo "$log" | awk '/^epoch [0-9]+\//{for(i=1;i<=NF;i++) if($i=="images/s") print $(i+1)}' | tail -n +2 | sort -n |
      awk '{a[NR]=$1} END{print (NR%2)? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}')
    summary=$(echo "$log" | grep '^{' | tail -1)
    echo "ts $amp $bs $ips $summary" >> "$results"
  done
done
pt=$(CIFAR_DIR="$cifar" python3 "$here/pytorch_baseline.py" "$baseline" resident '^resident_(fp32|fp16amp|bf16amp)_b(512|2048)_noitem$' 2>&1 | grep '^{' || true)
echo "$pt" >&2
python3 - "$results" <<PY
import json, sys
pt = {}
for line in """$pt""".splitlines():
    try:
        d = json.loads(line)
    except ValueError:
        continue
    name = d.get("name") or d.get("config") or ""
    if "images_per_s" in d: pt[name] = d["images_per_s"]
ts, mem = {}, {}
for line in open(sys.argv[1]):
    _, amp, bs, ips, summ = line.split(" ", 4)
    s = json.loads(summ)
    ts[(amp, int(bs))] = float(ips)
    mem[(amp, int(bs))] = s["allocated_bytes"]["activations"]
    print(f"{amp:4s} b{bs:>4s}: test_accuracy {s['test_accuracy']:.4f} loss_scale {s['loss_scale']} skipped_steps {s['skipped_steps']}")
for bs in (512, 2048):
    for amp, ptname in (("off", "fp32"), ("fp16", "fp16amp"), ("bf16", "bf16amp")):
        t = ts.get((amp, bs))
        key = f"resident_{ptname}_b{bs}_noitem"
        p = pt.get(key)
        rel = f"vs TrainScope fp32 {t / ts[('off', bs)]:.2f}x" if t and ts.get(("off", bs)) else ""
        if p:
            print(f"b{bs} {ptname}: TrainScope {t:.0f} img/s  PyTorch {key} {p:.0f} img/s  ratio {t / p:.2f}  {rel}")
        else:
            print(f"b{bs} {ptname}: TrainScope {t:.0f} img/s  PyTorch: no {key} row in the baseline output  {rel}")
for amp in ("fp16", "bf16"):
    a, f = mem.get((amp, 512)), mem.get(("off", 512))
    if a and f:
        print(f"memory b512 activations ({amp} / fp32, allocator category 'activations'): {a / 2**20:.1f} MiB / {f / 2**20:.1f} MiB = {a / f:.2f}")
PY
