#!/usr/bin/env python3
"""What recording a PyTorch program costs: seed_train.py --data-on-gpu --no-item --batch-size 128 (PyTorch
eager, many small kernels: the worst case for the injection library) without the injection library and under
trainscope-run in several configurations, alternated in rounds so that the machine's drift falls on
every configuration alike.

  inject_cost.py --run STAGE/trainscope-run --seed STAGE/seed_train.py --out DIR [--rounds 3]
                 [--epochs 4] [--limit 50000] [--configs none,lean,full,...] [--cpus 2-5]

One run's throughput is images / seconds over epochs 2..E (epoch 1 holds cuDNN's autotuning and
CUDA's lazy loading); a round's slowdown of a configuration is 1 - its img/s / the mean of the round's
two baselines (the round starts and ends with one); the figure reported is the median over rounds.
--cpus pins every run (the program and the library's threads) to those CPUs with taskset, to take the
scheduler's placement out of the noise (the rounds scattered by ±10 % unpinned).
Prints one line per run and a table; writes DIR/cost.json. Python's standard library only.
"""
import argparse, json, os, statistics, subprocess, sys, time

# name: (environment for trainscope-run, or None for the program alone; --inject-mode)
CONFIGS = {
    "none": (None, None),
    "nvtx": ({}, "nvtx"),                        # library loaded, samplers on, no CUPTI
    "nvtx-nosmp": ({"TRAINSCOPE_INJECT_SAMPLE_MS": "0"}, "nvtx"),
    "kernel": ({"TRAINSCOPE_INJECT_KINDS": "CONCURRENT_KERNEL"}, None),
    "kernel-nosmp": ({"TRAINSCOPE_INJECT_KINDS": "CONCURRENT_KERNEL", "TRAINSCOPE_INJECT_SAMPLE_MS": "0"}, None),
    "lean": ({}, "lean"),                        # the default: lean CUPTI kinds + the Python insight (--python lean)
    "lean-nopy": ({"__python": "off"}, "lean"),  # lean without the Python insight
    # lean plus runtime records of the launch calls alone (what full mode's launch_bound reads)
    "lean-launchrec": ({"TRAINSCOPE_INJECT_KINDS": "CONCURRENT_KERNEL,MEMCPY,SYNC_CALLS,RUNTIME_LAUNCH"}, None),
    "lean-pyfull": ({"__python": "full"}, "lean"),
    "lean-pynosmp": ({"TRAINSCOPE_PYTHON_HZ": "0"}, "lean"),  # the Python insight's ranges, no stack samples
    "lean-py20": ({"TRAINSCOPE_PYTHON_HZ": "20"}, "lean"),
    "lean-py-nomodule": ({"TRAINSCOPE_PYTHON_SKIP": "module"}, "lean"),  # each Python hook's share
    "lean-py-notensor": ({"TRAINSCOPE_PYTHON_SKIP": "tensor"}, "lean"),
    "lean-py-hooksonly": ({"TRAINSCOPE_PYTHON_HZ": "0", "TRAINSCOPE_PYTHON_SKIP": "backward,dataloader,optimizer"}, "lean"),
    "lean-nosmp": ({"TRAINSCOPE_INJECT_SAMPLE_MS": "0"}, "lean"),
    # CUPTI's own cost: kernel records made and handed back, none parsed or written (a measurement knob)
    "kernel-discard": ({"TRAINSCOPE_INJECT_KINDS": "CONCURRENT_KERNEL", "TRAINSCOPE_INJECT_DISCARD": "1"}, None),
    "lean-discard": ({"TRAINSCOPE_INJECT_DISCARD": "1"}, "lean"),
    "lean-flush1000": ({"TRAINSCOPE_INJECT_FLUSH_MS": "1000"}, "lean"),
    "lean-buf4m": ({"TRAINSCOPE_INJECT_BUFFER_KB": "4096"}, "lean"),
    "lean-nomem": ({"TRAINSCOPE_INJECT_KINDS": "CONCURRENT_KERNEL,MEMCPY,MEMSET,SYNCHRONIZATION"}, None),
    "full": ({}, "full"),
    "kernel-sync": ({"TRAINSCOPE_INJECT_KINDS": "CONCURRENT_KERNEL,SYNCHRONIZATION"}, None),
    "kernel-memcpy": ({"TRAINSCOPE_INJECT_KINDS": "CONCURRENT_KERNEL,MEMCPY"}, None),
    "kernel-syncapi": ({"TRAINSCOPE_INJECT_KINDS": "CONCURRENT_KERNEL,RUNTIME_SYNC"}, None),
    "kernel-synccb": ({"TRAINSCOPE_INJECT_KINDS": "CONCURRENT_KERNEL,SYNC_CALLS"}, None),
}


def throughput(log):
    """images/s over epochs 2.. of one seed_train.py log (0 when it printed fewer than two epochs)."""
    ep = []
    for line in log.splitlines():
        line = line.strip()
        if line.startswith("{") and '"epoch"' in line:
            try:
                d = json.loads(line)
                ep.append((d["images_per_s"], d["seconds"]))
            except (ValueError, KeyError):
                pass
    ep = ep[1:]
    secs = sum(s for _, s in ep)
    return sum(i * s for i, s in ep) / secs if secs > 0 else 0.0


def run_one(a, name, tag):
    env_add, mode = CONFIGS[name]
    prog = [a.python, a.seed, "--data-on-gpu", "--no-item", "--batch-size", "128", "--epochs", str(a.epochs),
            "--limit", str(a.limit)]
    env = dict(os.environ)
    if env_add is None:
        cmd = prog
    else:
        python = env_add.get("__python")  # a runner option, not a variable
        env.update({k: v for k, v in env_add.items() if not k.startswith("__")})
        session = os.path.join(a.out, f"cost-{tag}.tsession")
        cmd = [a.run, "--session", session] + (["--inject-mode", mode] if mode else []) + \
              (["--python", python] if python else []) + ["--"] + prog
    if a.cpus:
        cmd = ["taskset", "-c", a.cpus] + cmd
    t = time.monotonic()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.monotonic() - t
    if env_add is not None:
        for suffix in ("", "-wal", "-shm"):
            try: os.remove(os.path.join(a.out, f"cost-{tag}.tsession{suffix}"))
            except OSError: pass
    ips = throughput(p.stdout)
    if p.returncode != 0 or ips == 0:
        print(f"  {tag}: exit {p.returncode}, no throughput: {(p.stdout + p.stderr)[-400:]}", flush=True)
    return ips, wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", required=True); ap.add_argument("--seed", required=True); ap.add_argument("--out", required=True)
    ap.add_argument("--python", default=sys.executable); ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--epochs", type=int, default=4); ap.add_argument("--limit", type=int, default=50000)
    ap.add_argument("--cpus", default="", help="taskset CPU list for every run, e.g. 2-5")
    ap.add_argument("--configs", default="kernel,kernel-sync,kernel-syncapi,lean")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    names = [c for c in a.configs.split(",") if c and c != "none"]
    for c in names:
        if c not in CONFIGS: sys.exit(f"inject_cost.py: unknown configuration {c} (known: {', '.join(CONFIGS)})")
    slow = {c: [] for c in names}
    ips = {c: [] for c in ["none"] + names}
    for r in range(a.rounds):
        order = names[r % len(names):] + names[:r % len(names)]  # rotate: no configuration always runs first
        b1, _ = run_one(a, "none", f"r{r}-none-a")
        got = {}
        for c in order:
            got[c], wall = run_one(a, c, f"r{r}-{c}")
            print(f"  round {r + 1} {c}: {got[c]:.0f} img/s ({wall:.1f} s wall)", flush=True)
        b2, _ = run_one(a, "none", f"r{r}-none-b")
        base = (b1 + b2) / 2
        ips["none"] += [b1, b2]
        print(f"  round {r + 1} baseline: {b1:.0f} / {b2:.0f} img/s", flush=True)
        for c in names:
            ips[c].append(got[c])
            if base > 0 and got[c] > 0: slow[c].append(1 - got[c] / base)
    print(f"\ncost of recording seed_train.py --data-on-gpu --no-item --batch-size 128, epochs 2..{a.epochs}, "
          f"{a.rounds} rounds (median slowdown against the round's baselines; baseline median "
          f"{statistics.median(ips['none']):.0f} img/s)")
    table = {}
    for c in names:
        m = statistics.median(slow[c]) if slow[c] else float("nan")
        table[c] = dict(median_slowdown=m, rounds=slow[c], img_s=ips[c])
        print(f"  {c:16s} {100 * m:6.1f} %   rounds " + " ".join(f"{100 * v:.1f}" for v in slow[c]))
    with open(os.path.join(a.out, "cost.json"), "w") as f:
        json.dump(dict(baseline_img_s=ips["none"], configs=table, epochs=a.epochs, limit=a.limit), f, indent=1)


if __name__ == "__main__":
    main()
