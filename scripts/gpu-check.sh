#!/usr/bin/env bash
# Runs on the GPU test machine (see ../shared/GPU.md): the GPU tests, the PyTorch reference
# check, the throughput benchmark and a CIFAR-10 training run, from a staged folder.
#   scripts/gpu-check.sh STAGE CIFAR_DIR OUT [tests|bench|train|accuracy|all]...
# STAGE holds trainscope-run, ts_gpu_tests and pytorch_seed_cnn.py (copied by scripts/stage-gpu.sh).
set -uo pipefail
stage=$1; cifar=$2; out=$3; shift 3
what=${*:-all}
T=/opt/torch/.venv/lib/python3.12/site-packages/nvidia
export LD_LIBRARY_PATH=$T/cudnn/lib:$T/cu13/lib:$T/cublas/lib:/usr/local/cuda-13.0/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
here=$(cd "$(dirname "$0")/.." && pwd)
has() { [[ " $what " == *" $1 "* || " $what " == *" all "* ]]; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader

if has tests; then
  echo "== PyTorch reference state + GPU tests"
  python3 "$here/tests/reference/make_reference.py" /tmp/ts_reference.bin
  TRAINSCOPE_REFERENCE_FILE=/tmp/ts_reference.bin "$stage/ts_gpu_tests" 2>&1 | tee "$out/gpu_tests.log" | grep -E '^\[  (PASSED|FAILED|SKIPPED) |^reference |FAILED|Failure|img/s' | head -80
  echo "== error cases"
  printf '%s' '{"layers":[{"type":"Conv2d","name":"huge","in_channels":3,"out_channels":4096,"kernel_size":3,"padding":1},{"type":"AdaptiveAvgPool2d"},{"type":"Flatten"},{"type":"Linear","in_features":4096,"out_features":10}]}' > /tmp/huge.json
  "$stage/trainscope-run" --device cuda --data "$cifar" --model /tmp/huge.json --batch-size 9000 --epochs 1; echo "exit $?"
  "$stage/trainscope-run" --device cpu --data "$cifar" --epochs 1; echo "exit $?"
fi
if has bench; then
  echo "== throughput vs PyTorch"
  bash "$here/bench/throughput_vs_pytorch.sh" "$stage/trainscope-run" "$cifar" "$stage/pytorch_seed_cnn.py" 4 2>&1 | tee "$out/bench.log"
fi
if has train; then
  echo "== TrainScope, 5 epochs, b128, num_workers 4"
  "$stage/trainscope-run" --device cuda --data "$cifar" --epochs 5 --batch-size 128 --num-workers 4 --quiet 2>&1 | tee "$out/train.log"
fi
if has accuracy; then
  echo "== accuracy: TrainScope seeds 0 1 2 and the seed's PyTorch recipe (3 seeds), full CIFAR-10"
  for s in 0 1 2; do
    "$stage/trainscope-run" --device cuda --data "$cifar" --epochs 5 --batch-size 128 --num-workers 4 --seed $s --quiet 2>&1 | tee -a "$out/accuracy_trainscope.log" | tail -1
  done
  CIFAR_DIR="$cifar" python3 "$stage/pytorch_seed_cnn.py" accuracy 2>&1 | tee "$out/accuracy_pytorch.log" | grep '"epoch": 5'
fi
