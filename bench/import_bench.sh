#!/usr/bin/env bash
# Import benchmark: time from a trace file to a loaded EventStore (the GUI's budget for
# its first overview paint is 1.0 s for a 60 MB trace) and the peak memory of a 1 GB import (budget:
# 0.5 x the decompressed size). Generates the traces with bench/import_bench.py from the Kineto
# ResNet-50 sample (events repeated, time-shifted) into $TS_BENCH_DIR (default /tmp/ts_import_bench;
# never into the repo), builds bench/import_bench.cpp against BUILD_DIR's libraries and prints:
#   60 MB plain: median of 5 imports; 1 GB plain and gzip (-1): one import each, with peak RSS
#   (getrusage and /usr/bin/time -v).
# usage: bench/import_bench.sh [BUILD_DIR]   (default build; needs ts_profiling built there)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
OUT=${TS_BENCH_DIR:-/tmp/ts_import_bench}
SRC=${TS_BENCH_TRACE:-../shared/cases/traces/kineto_2021-06_resnet50_nw0_memory.pt.trace.json.gz}
[ -f "$SRC" ] || { echo "import_bench: source trace $SRC not found (set TS_BENCH_TRACE)" >&2; exit 2; }
mkdir -p "$OUT"
cmake --build "$BUILD" --target ts_profiling >/dev/null
c++ -O2 -std=c++20 -I. bench/import_bench.cpp "$BUILD/profiling/libts_profiling.a" "$BUILD/engine/libts_engine.a" \
  -lz -lfmt -lsqlite3 -lpthread -o "$OUT/import_bench"
[ -f "$OUT/trace_60mb.json" ] || python3 bench/import_bench.py "$SRC" "$OUT/trace_60mb.json" 60e6
[ -f "$OUT/trace_1gb.json" ] || python3 bench/import_bench.py "$SRC" "$OUT/trace_1gb.json" 1e9
[ -f "$OUT/trace_1gb.json.gz" ] || gzip -1 -k -f "$OUT/trace_1gb.json"
echo "== 60 MB, plain JSON, median of 5"
"$OUT/import_bench" "$OUT/trace_60mb.json" 5
for f in trace_1gb.json trace_1gb.json.gz; do
  echo "== $f ($(du -m "$OUT/$f" | cut -f1) MB on disk), one import"
  /usr/bin/time -v "$OUT/import_bench" "$OUT/$f" 1 2>"$OUT/time.txt"
  grep -E "Maximum resident set size|Elapsed \(wall" "$OUT/time.txt"
done
echo "load average while measuring: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
