#!/usr/bin/env bash
# On the GPU machine (after scripts/stage-inject.sh; carry stage): records gloo DDP jobs with the Python
# insight's collective ranges (trainscope-run, lean mode), checks
# the hooks against real PyTorch (tests/inject/python/real_dist_check.py), analyses each job as one
# (trainscope-run --analyze DIR) and packs everything into $OUT/jobs.tar.xz.
set -uo pipefail
S=$PWD/stage; W=$OUT/w; mkdir -p "$W"
T=/opt/torch/.venv/lib/python3.12/site-packages/nvidia
export LD_LIBRARY_PATH=$S:$T/cudnn/lib:$T/cu13/lib:$T/cublas/lib:$T/nccl/lib:/usr/local/cuda-13.0/targets/x86_64-linux/lib
export PATH=/opt/torch/.venv/bin:$PATH
P=$PWD/bench/programs/distributed/ddp_train.py
C=$PWD/tests/inject/python/real_dist_check.py
nvidia-smi --query-gpu=name --format=csv,noheader
python -c "import torch; print('torch', torch.__version__)"
chk() {  # name device
  mkdir -p $W/$1
  timeout 120 $S/trainscope-run --session $W/$1/chk.tsession -- torchrun --standalone --nproc_per_node 2 $C --device $2 > $W/$1/run.log 2>&1
  echo "$1 rc=$?"; grep -E "RESULT|rror|Traceback" $W/$1/run.log | head -8
  timeout 60 torchrun --standalone --nproc_per_node 2 $C --device $2 > $W/$1/plain.log 2>&1; echo "$1 plain rc=$?"; grep RESULT $W/$1/plain.log | head -2
  python - $W/$1 <<'PY'
import sqlite3, sys, glob, collections
for f in sorted(glob.glob(sys.argv[1] + "/*.tsession")):
    c = collections.Counter()
    try:
        for (n,) in sqlite3.connect(f).execute("select name from host_range_view where name like 'comm:%'"):
            c[" ".join(n.split()[:3]) if "bucket" not in n else "comm: async ddp bucket"] += 1
    except Exception as e:
        c[repr(e)] = 1
    print(f.split("/")[-1], dict(c))
PY
}
chk chk_cpu cpu
chk chk_cuda cuda
job() {  # name nproc args...
  local n=$1 np=$2; shift 2
  mkdir -p $W/$n
  local t0=$(date +%s.%N)
  timeout 150 $S/trainscope-run --session $W/$n/ddp.tsession -- torchrun --standalone --nproc_per_node $np $P --backend gloo "$@" > $W/$n/run.log 2>&1
  echo "$n rc=$? $(echo "$(date +%s.%N) - $t0" | bc) s"; grep -E "img/s|rror" $W/$n/run.log | tail -4
  $S/trainscope-run --analyze $W/$n > $W/$n/job.txt 2>&1; $S/trainscope-run --analyze $W/$n --json > $W/$n/job.json 2>&1
  cat $W/$n/job.txt
}
job j2_balanced 2
job j2_straggler 2 --slow-rank 1 --slow-workers 0
job j4_balanced 4
job j4_sleeper 4 --sleep-rank 2 --sleep-ms 15
du -sh $W/*
cd $W && tar cJf $OUT/jobs.tar.xz . && ls -la $OUT
