#!/usr/bin/env bash
# Profiler acceptance on the GPU machine: images/s with and without --profile in the same
# run (alternating, best of each), bytes per event and dropped records of a profiled run, and the
# top-10 kernels query on the session (python3's sqlite3: the sqlite3 shell may be missing there).
#   bench/profile_overhead.sh RUNNER CIFAR_DIR OUT [EPOCHS]
set -uo pipefail
runner=$1; cifar=$2; out=$3; epochs=${4:-10}
args=(--device cuda --data "$cifar" --batch-size 128 --num-workers 4 --quiet)
ips() { python3 -c 'import json,sys; print([json.loads(l) for l in sys.stdin if l.startswith("{")][-1]["images_per_s"])'; }
for i in 1 2; do
  off=$("$runner" "${args[@]}" --epochs "$epochs" | ips); echo "run $i without --profile: $off img/s"
  on=$("$runner" "${args[@]}" --epochs "$epochs" --session "$out/overhead$i.tsession" --profile-every-kernel | tee "$out/profiled$i.log" | ips)
  echo "run $i with --profile:    $on img/s"; grep '^session' "$out/profiled$i.log"
  echo "$off $on" >> "$out/ips.txt"
done
python3 - "$out/ips.txt" <<'PY'
import sys
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1])]
off = max(r[0] for r in rows); on = max(r[1] for r in rows)
print(f"best without {off:.0f} img/s, best with {on:.0f} img/s, ratio {on/off:.3f} (acceptance >= 0.95)")
PY
echo "== 2-epoch session, every step profiled"
"$runner" "${args[@]}" --epochs 2 --session "$out/two_epochs.tsession" --profile-every-kernel | grep -E '^session|^epoch'
python3 - "$out/two_epochs.tsession" <<'PY'
import sqlite3, sys, os
db = sqlite3.connect(sys.argv[1])
q = "SELECT name, COUNT(*) AS calls, SUM(dur) AS total_ns FROM kernel_view GROUP BY name ORDER BY total_ns DESC LIMIT 10"
print("top 10 kernels by total time:")
for name, calls, total in db.execute(q): print(f"  {total/1e6:9.2f} ms {calls:7d}x  {name[:100]}")
tables = ["kernels","memcpys","memsets","runtime_calls","syncs","memory_events","host_ranges"]
n = {t: db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in tables}
steps = db.execute("SELECT COUNT(*) FROM steps").fetchone()[0]
size = os.path.getsize(sys.argv[1]); ev = sum(n.values())
print("events:", n, "steps:", steps, f"events/step {ev/max(steps,1):.1f}")
print(f"file {size} bytes / {ev} events = {size/ev:.1f} bytes/event")
print("dropped:", dict(db.execute("SELECT source, count FROM dropped").fetchall()))
print("clock:", db.execute("SELECT COUNT(*), MIN(drift_ns), MAX(drift_ns) FROM clock_checks").fetchone())
print("meta:", {k: v[:60] for k, v in db.execute("SELECT key, value FROM meta WHERE key NOT LIKE 'run.%'")})
print("series:", db.execute("SELECT COUNT(*) FROM sample_series").fetchone()[0], "samples:", db.execute("SELECT COUNT(*) FROM samples").fetchone()[0])
PY
