#!/usr/bin/env bash
# ctest (label gpu): trainscope-run -- ts_inject_cuda_program records the program's kernels, NVTX steps
# and its blocking copies as syncs, and a crash in the middle leaves a readable session. Exit 77
# (skipped) without a GPU.
#   gpu_program_check.sh RUNNER LIBRARY PROGRAM WORKDIR
set -uo pipefail
RUN=$1 LIB=$2 PROG=$3 DIR=$4
rm -rf "$DIR" && mkdir -p "$DIR"
export TRAINSCOPE_INJECT_LIB=$LIB
"$PROG" --steps 0 >/dev/null 2>&1
[ $? -eq 77 ] && { echo "no usable GPU: skipped"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
"$RUN" --session "$DIR/ok.tsession" -- "$PROG" --steps 100 --kernels 20 || fail "the program's exit code"
json=$("$RUN" --analyze "$DIR/ok.tsession" --json) || fail "--analyze"
grep -q '"gpu_present":true' <<<"$json" || fail "no GPU activity in the session: $json"
grep -q '"steps":99' <<<"$json" || fail "expected 99 analysed steps: $json"
# Each step's blocking cudaMemcpy D2H reaches the session as a sync range (lean's SYNC_CALLS).
grep -q '"sync_ns":[1-9]' <<<"$json" || fail "no host sync recorded (SYNC_CALLS): $json"
"$RUN" --session "$DIR/crash.tsession" -- "$PROG" --steps 1000000 --kernels 20 --crash-at 30000  # ~3 s in
code=$?
[ $code -eq 139 ] || fail "a crash should end with 139 (SIGSEGV), got $code"
json=$("$RUN" --analyze "$DIR/crash.tsession" --json) || fail "the crashed run's session is not readable"
grep -q '"gpu_present":true' <<<"$json" || fail "the crashed run kept no GPU activity (all but the last second): $json"
echo "ok"
