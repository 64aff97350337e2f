#!/usr/bin/env bash
# A real PyTorch program with DataLoader(num_workers=8) (fork and spawn) runs and exits under
# trainscope-run --python lean as it does alone: the same output and exit code. Needs torch (exit 77,
# skipped, without it: ctest label gpu).   torch_workers_check.sh TRAINSCOPE_RUN INJECT_LIB WORKDIR
set -uo pipefail
RUN=$1 LIB=$2 DIR=$3
PY=${PYTHON:-python3}
[ -x /opt/torch/.venv/bin/python ] && PY=${PYTHON:-/opt/torch/.venv/bin/python}
"$PY" -c "import torch" 2>/dev/null || { echo "no torch: skipped"; exit 77; }
mkdir -p "$DIR"
cat >"$DIR/workers.py" <<'PROG'
import sys, torch
from torch.utils.data import DataLoader, TensorDataset
ctx = sys.argv[1]
ds = TensorDataset(torch.arange(512, dtype=torch.float32).reshape(-1, 1), torch.arange(512) % 10)
dl = DataLoader(ds, batch_size=32, num_workers=8, multiprocessing_context=ctx, shuffle=False)
model = torch.nn.Linear(1, 10)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
total = 0.0
for x, y in dl:
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
    total += float(x.sum())
print(ctx, "batches", len(dl), "sum", total)
sys.exit(5)
PROG
fail=0
for ctx in fork spawn; do
  a=$(cd "$DIR" && "$PY" workers.py $ctx 2>&1; echo "rc=$?")
  b=$(cd "$DIR" && TRAINSCOPE_INJECT_LIB="$LIB" "$RUN" --session "$DIR/w-$ctx.tsession" -- "$PY" workers.py $ctx 2>/dev/null; echo "rc=$?")
  if [ "$a" = "$b" ]; then echo "$ctx: same output and exit code: $(tr '\n' ' ' <<<"$a")"; else
    echo "$ctx: DIFFERS: alone [$a] under trainscope-run [$b]"; fail=1; fi
done
exit $fail
