#!/bin/bash
# The environment doctor on the H200, from a stage/ folder holding trainscope-run,
# optionally ts_gpu_tests, and this script (build: cmake --preset gpu-h200 && cmake --build build-gpu
# --target trainscope-run ts_gpu_tests; copy both, stripped, and this script into stage/).
#  1. the real report (text, JSON, Markdown) with the CUDA 13 libraries and cuDNN 9.19 first;
#  2. the induced problem: the system's older cuDNN 9.14 first on LD_LIBRARY_PATH -> the
#     cudnn_older_than_headers finding and exit code 3;
#  3. a short profiled training run whose session carries the health series, and its analysis.
# Usage: bash stage/h200_doctor.sh [OUT]   (OUT defaults to $OUT, then ./out)
set -u -o pipefail
S=$(cd "$(dirname "$0")" && pwd)
R="$S/trainscope-run"
O=${1:-${OUT:-./out}}
mkdir -p "$O"
NV=/opt/torch/.venv/lib/python3.12/site-packages/nvidia
CUDA_LIB=/usr/local/cuda-13.0/targets/x86_64-linux/lib
GOOD="$NV/cudnn/lib:$NV/cu13/lib:$NV/nccl/lib:$CUDA_LIB"
OLD_CUDNN=/usr/lib/x86_64-linux-gnu  # cuDNN 9.14 (GPU.md)

echo "== 1. the real report (cuDNN 9.19 first)"
LD_LIBRARY_PATH="$GOOD" "$R" --doctor 2>&1 | tee "$O/doctor.txt"
echo "exit code: ${PIPESTATUS[0]}" | tee -a "$O/doctor.txt"
LD_LIBRARY_PATH="$GOOD" "$R" --doctor --json > "$O/doctor.json" 2>&1; echo "json exit code: $?"
LD_LIBRARY_PATH="$GOOD" "$R" --doctor --markdown > "$O/doctor.md" 2>&1; echo "markdown exit code: $?"
if grep -qw "$(hostname)" "$O/doctor.md"; then echo "MARKDOWN NAMES THE HOST"; else echo "markdown: no host name"; fi

if [ -x "$S/ts_gpu_tests" ]; then
  echo; echo "== 1b. the real probe's GPU test"
  LD_LIBRARY_PATH="$GOOD" "$S/ts_gpu_tests" --gtest_filter='DoctorGpu*' 2>&1 | tee "$O/gpu_test.txt" | grep -E "OK|FAILED|SKIPPED|PASSED"
fi

echo; echo "== 2. induced problem: the system cuDNN 9.14 first"
LD_LIBRARY_PATH="$OLD_CUDNN:$GOOD" "$R" --doctor 2>&1 | tee "$O/doctor_cudnn914.txt"
echo "exit code: ${PIPESTATUS[0]} (3 expected)" | tee -a "$O/doctor_cudnn914.txt"

echo; echo "== 3. a short profiled training run (generated sample set) and its health series"
LD_LIBRARY_PATH="$GOOD" "$R" --device cuda --epochs 10 --num-workers 4 --quiet \
  --session "$O/health.tsession" 2>&1 | tee "$O/train.log"
echo "train exit code: ${PIPESTATUS[0]}"
LD_LIBRARY_PATH="$GOOD" "$R" --analyze "$O/health.tsession" 2>&1 | tee "$O/analyze.txt" | grep -E "GPU health|verdict|NVML" || true
LD_LIBRARY_PATH="$GOOD" "$R" --analyze "$O/health.tsession" --json > "$O/analyze.json" 2>&1
python3 - "$O/health.tsession" <<'PY' 2>&1 | tee "$O/series.txt"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT s.name, s.unit, COUNT(*), MIN(v.value), MAX(v.value) FROM sample_series s "
                  "JOIN samples v ON v.series_id = s.id WHERE s.name LIKE 'gpu.%' GROUP BY s.id ORDER BY s.name").fetchall()
for r in rows: print("%-28s %-8s n=%-6d min=%-14g max=%g" % r)
print("samplers.nvml:", db.execute("SELECT value FROM meta WHERE key='samplers.nvml'").fetchone())
PY
ls -la "$O"
