#!/usr/bin/env bash
# Runs on the GPU test machine (see ../shared/GPU.md): the GPU tests, the PyTorch reference
# check, the throughput benchmark and a CIFAR-10 training run, from a staged folder.
#   scripts/gpu-check.sh STAGE CIFAR_DIR OUT [tests|bench|train|accuracy|amp|profile|analysis|all]...
# amp: the AMP acceptance on full CIFAR-10 (1: fp16/bf16 vs fp32 accuracy after 5 epochs;
# 2+3: bench/amp_vs_pytorch.sh memory and speed ratios; 4: --deterministic twice, and a resume from an
# epoch-2 checkpoint vs the uninterrupted run's epoch-3 loss).
# analysis: the analysis acceptance: six recorded scenarios (input-bound, sync-bound, launch-bound and
# their fixed twins), each analysed with --analyze --json; one line per scenario.
# syncrepeat: scenario (b) of the analysis acceptance five times (the sync-caused idle sits near its 10 % threshold).
# gui: the window on the GPU (offscreen): a 3-epoch run with --live-latency and screenshots; needs
#   GUI_STAGE (trainscope + qt.tar.xz from ../shared/tools/pack-qt-runtime.sh).
# tools: --compare and --export on sessions recorded here, and --import of the exported trace.
# fixtures: small recorded sessions for tests/data (a few thousand images each; copied to OUT).
# STAGE holds trainscope-run, ts_gpu_tests and pytorch_seed_cnn.py (copied by scripts/stage-gpu.sh).
set -uo pipefail
stage=$1; cifar=$2; final_out=$3; shift 3
# Detailed logs and sessions go to a work folder, packed into one tarball in OUT at the end (the
# device tool returns only a few files).
out=$(mktemp -d /tmp/gpu-check.XXXXXX)
trap 'tar -czf "$final_out/details.tar.gz" --exclude='overhead*' -C "$out" . 2>/dev/null' EXIT
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
if has profile; then
  echo "== profiler acceptance: overhead, bytes/event, dropped, top-10 kernels"
  bash "$here/bench/profile_overhead.sh" "$stage/trainscope-run" "$cifar" "$out" "${PROFILE_EPOCHS:-6}" 2>&1 | tee "$out/profile.log"
fi
if has amp; then
  echo "== AMP acceptance 1: 5 epochs b128 (the seed's recipe), fp32 / fp16 / bf16, test accuracy"
  for a in off fp16 bf16; do
    "$stage/trainscope-run" --device cuda --data "$cifar" --epochs 5 --batch-size 128 --num-workers 4 --amp $a --quiet 2>&1 |
      tee "$out/amp_accuracy_$a.log" | tail -1 | python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); print("amp", d["amp"], "test_accuracy", d["test_accuracy"], "loss_scale", d["loss_scale"], "skipped_steps", d["skipped_steps"], "img/s", round(d["images_per_s"]))'
  done
  echo "== AMP acceptance 2+3: memory and speed vs PyTorch autocast"
  bash "$here/bench/amp_vs_pytorch.sh" "$stage/trainscope-run" "$cifar" "$stage/pytorch_seed_cnn.py" 4 2>&1 | tee "$out/amp_bench.log" | grep -v '^epoch '
  echo "== AMP acceptance 4: determinism and resume (fp16, b128, 3 epochs)"
  ck=$(mktemp -d)
  det="--device cuda --data $cifar --batch-size 128 --num-workers 4 --amp fp16 --deterministic --seed 7 --quiet"
  "$stage/trainscope-run" $det --epochs 3 --checkpoint-every 2 --checkpoint "$ck/" 2>&1 | tail -1 > "$out/det_a.json"
  "$stage/trainscope-run" $det --epochs 3 2>&1 | tail -1 > "$out/det_b.json"
  "$stage/trainscope-run" $det --epochs 3 --resume "$ck/checkpoint-epoch2.tsckpt" 2>&1 | tail -1 > "$out/det_resumed.json"
  python3 - "$out" <<'PY'
import json, sys
o = sys.argv[1]
a, b, r = (json.load(open(f"{o}/{n}.json")) for n in ("det_a", "det_b", "det_resumed"))
print("deterministic runs: epoch train losses", a["epoch_train_loss"], "vs", b["epoch_train_loss"],
      "IDENTICAL" if a["epoch_train_loss"] == b["epoch_train_loss"] else "DIFFERENT")
print("resume from epoch 2: epoch-3 loss", r["epoch_train_loss"][0], "vs uninterrupted", a["epoch_train_loss"][2],
      "EXACT" if r["epoch_train_loss"][0] == a["epoch_train_loss"][2] else "DIFFERENT",
      "| accuracy", r["test_accuracy"], "vs", a["test_accuracy"])
PY
fi
if has analysis; then
  echo "== analysis acceptance: scenario -> key percentages, verdict fired?"
  # name | expected verdict(s) | expect fired (yes/no) | options (real knobs only)
  scenarios=(
    "a_nw0_augment|input_bound|yes|--batch-size 128 --num-workers 0 --augment"
    "a_nw4_augment|input_bound|no|--batch-size 128 --num-workers 4 --augment"
    "b_sync_pageable|sync_bound|yes|--batch-size 128 --sync-every-step --no-pin-memory"
    "b_nosync|sync_bound|no|--batch-size 128"
    "c_b16|launch_bound,low_utilization|yes|--batch-size 16 --num-workers 4"
    "c_b512|launch_bound,low_utilization|no|--batch-size 512 --num-workers 4"
  )
  for sc in "${scenarios[@]}"; do
    IFS='|' read -r name ids expect opts <<< "$sc"
    sess="$out/analysis_$name.tsession"
    # shellcheck disable=SC2086
    "$stage/trainscope-run" --device cuda --data "$cifar" --epochs 1 --limit-train "${ANALYSIS_IMAGES:-20000}" $opts \
      --session "$sess" --profile-every-kernel --quiet > "$out/analysis_$name.log" 2>&1
    "$stage/trainscope-run" --analyze "$sess" > "$out/analysis_$name.txt" 2>&1
    "$stage/trainscope-run" --analyze "$sess" --json > "$out/analysis_$name.json" 2>>"$out/analysis_$name.log"
    python3 - "$out/analysis_$name.json" "$name" "$ids" "$expect" <<'PY'
import json, sys
path, name, ids, expect = sys.argv[1:5]
try:
    d = json.load(open(path))
except Exception as e:
    print(f"{name}: no analysis ({e})"); sys.exit(0)
w = d["wall_ns"] or 1
b = d["breakdown_ns"]
pct = lambda v: "absent" if v is None else f"{100 * v / w:.1f}%"
util = d["gpu_utilization"]
fired = sorted(v["id"] + ":" + v["severity"] for v in d["verdicts"])
hit = any(v["id"] in ids.split(",") for v in d["verdicts"])
ok = hit == (expect == "yes")
print(f"{name}: steps {d['steps']} util {'absent' if util is None else f'{100*util:.1f}%'}"
      f" data_wait {pct(d['data_loader_wait_ns'])} sync_idle {pct(d['gpu_idle_sync_ns'])}"
      f" launch_idle {pct(d['gpu_idle_host_wait_launching_ns'])} kernel {pct(b['kernel'])}"
      f" med_kernel_us {None if d['median_kernel_ns'] is None else round(d['median_kernel_ns']/1e3, 1)}"
      f" med_launch_us {None if d['median_launch_ns'] is None else round(d['median_launch_ns']/1e3, 1)}"
      f" | {ids} fired={'yes' if hit else 'no'} expected={expect} {'PASS' if ok else 'FAIL'} | verdicts {fired}")
PY
  done
fi

if has fixtures; then
  echo "== fixtures: small recorded H200 sessions for tests/data"
  for fx in "b128_nw4|--epochs 2 --limit-train 5000 --batch-size 128 --num-workers 4" \
            "b128_nw0_augment|--epochs 2 --limit-train 5000 --batch-size 128 --num-workers 0 --augment" \
            "b16_nw4|--epochs 1 --limit-train 1500 --batch-size 16 --num-workers 4" \
            "b128_nw4_10ep_sched|--epochs 10 --batch-size 128 --num-workers 4 --profile-schedule wait=40,warmup=1,active=4"; do
    IFS='|' read -r name opts <<< "$fx"
    # shellcheck disable=SC2086
    "$stage/trainscope-run" --device cuda --data "$cifar" $opts \
      --session "$final_out/gpu_$name.tsession" --profile-every-kernel --quiet > "$out/fixture_$name.log" 2>&1
    echo "gpu_$name: rc $? $(du -k "$final_out/gpu_$name.tsession" | cut -f1) KiB"
    # Runtime calls on the trainer's Linux tid (CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM): share of calls
    # whose tid is a host-range tid (the views: every session format has them with these columns).
    python3 - "$final_out/gpu_$name.tsession" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
tids = {r[0] for r in db.execute("select distinct tid from host_range_view")}
rt = db.execute("select tid, count(*) from runtime_view group by tid").fetchall()
matched = sum(c for t, c in rt if t in tids); total = sum(c for _, c in rt)
print(f"  runtime calls on host-range threads: {matched}/{total}")
PY
  done
fi

if has syncrepeat; then
  echo "== scenario (b) x5: --batch-size 128 --sync-every-step --no-pin-memory"
  for i in 1 2 3 4 5; do
    sess="$out/sync_repeat_$i.tsession"
    "$stage/trainscope-run" --device cuda --data "$cifar" --epochs 1 --limit-train 20000 --batch-size 128 \
      --sync-every-step --no-pin-memory --session "$sess" --profile-every-kernel --quiet > /dev/null 2>&1
    "$stage/trainscope-run" --analyze "$sess" --json > "$out/sync_repeat_$i.json"
    python3 - "$out/sync_repeat_$i.json" "$i" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); w = d["wall_ns"] or 1
ids = sorted(v["id"] + ":" + v["severity"] for v in d["verdicts"])
print(f"run {sys.argv[2]}: sync_idle {100 * d['gpu_idle_sync_ns'] / w:.1f}% util {100 * d['gpu_utilization']:.1f}% verdicts {ids}")
PY
  done
fi

if has tools; then
  echo "== --compare / --export / --import on H200 sessions"
  "$stage/trainscope-run" --device cuda --data "$cifar" --epochs 1 --limit-train 5000 --num-workers 4 --session "$out/t_nw4.tsession" --profile-every-kernel --quiet > /dev/null 2>&1
  "$stage/trainscope-run" --device cuda --data "$cifar" --epochs 1 --limit-train 5000 --num-workers 0 --augment --session "$out/t_nw0.tsession" --profile-every-kernel --quiet > /dev/null 2>&1
  "$stage/trainscope-run" --compare "$out/t_nw4.tsession" "$out/t_nw0.tsession" 2>&1 | head -40
  "$stage/trainscope-run" --export "$out/t_nw4.tsession" --format chrome --output "$out/t_nw4.json.gz" 2>&1 | tail -2
  "$stage/trainscope-run" --import "$out/t_nw4.json.gz" --session "$out/t_nw4_reimported.tsession" 2>&1 | tail -3
  "$stage/trainscope-run" --analyze "$out/t_nw4_reimported.tsession" 2>&1 | sed -n 1,4p
fi

if has gui; then
  echo "== the window on the H200 (offscreen): live latency, screenshots"
  mkdir -p /tmp/qt && tar -xJf "$GUI_STAGE/qt.tar.xz" -C /tmp/qt
  mkdir -p "$final_out/gui"
  LD_LIBRARY_PATH=/tmp/qt/lib:$LD_LIBRARY_PATH QT_PLUGIN_PATH=/tmp/qt/plugins QT_QPA_PLATFORM=offscreen \
    FONTCONFIG_FILE=/tmp/qt/fonts.conf XDG_RUNTIME_DIR=/tmp timeout 300 "$GUI_STAGE/trainscope" --autorun --device cuda \
    --data "$cifar" --epochs "${GUI_EPOCHS:-3}" --num-workers 4 ${GUI_ARGS:-} --live-latency --screenshots "$final_out/gui" --quit-when-done 2>&1 \
    | grep -v "^QStandardPaths" | tail -12
fi
