#!/usr/bin/env python3
"""Holds the playground's measured columns (trainscope-run --playground F --measure --json) against
Nsight Compute's values for the same kernels (ncu --csv over trainscope-run --playground F).

    trainscope-run --playground copy,sgemm,tensor --measure --json > measured.json
    for f in copy sgemm tensor; do
      ncu --clock-control none --cache-control all --metrics M --csv trainscope-run --playground $f > ncu_$f.csv
    done   # M: the six metrics docs/playground.md lists
    python3 bench/measure_vs_ncu.py measured.json ncu_copy.csv ncu_sgemm.csv ncu_tensor.csv

A row's kernel is found in ncu's CSV by its name (namespaces, argument lists and the row's "..."
cut dropped; template bools as ncu prints them, 0/1) within the same family (the CSV file's name,
ncu_FAMILY.csv); ncu's value is the median over the launches it profiled. Prints ours, ncu's and the
difference in % for occupancy, SM %, DRAM %, DRAM GB/s and kernel time; exit 1 when a difference is
over --tolerance % (default 10, the aim in docs/playground.md) and more than one unit (%, GB/s, us).
"""
import argparse
import csv
import io
import json
import os
import re
import statistics
import sys
from collections import defaultdict

UNITS = {"%": 1, "byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "ns": 1, "nsecond": 1,
         "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6}


def norm(name):
    name = name.split(": grid", 1)[0]
    name = re.sub(r"^void ", "", name)
    name = re.sub(r"(ts::)?(<?unnamed>|\(anonymous namespace\))::|ts::kernels::", "", name)  # ncu may drop the "<"
    name = re.sub(r"\(.*$", "", name)
    return name.replace("false", "0").replace("true", "1").replace(" ", "").rstrip(".")


def read_ncu(path):
    lines = [l for l in open(path).read().splitlines() if l.startswith('"')]
    out = defaultdict(lambda: defaultdict(list))
    for r in csv.DictReader(io.StringIO("\n".join(lines))):
        v = float(r["Metric Value"].replace(",", "")) * UNITS[r["Metric Unit"]]
        out[norm(r["Kernel Name"])][r["Metric Name"]].append(v)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("measured")
    ap.add_argument("ncu", nargs="+")
    ap.add_argument("--tolerance", type=float, default=10.0)
    a = ap.parse_args()
    ncu = {}
    for p in a.ncu:
        fam = re.sub(r"^ncu_|\.csv$", "", os.path.basename(p))
        ncu[fam] = read_ncu(p)
    bad = 0
    print(f"{'row':34} {'metric':9} {'ours':>10} {'ncu':>10} {'diff':>7}")
    for lad in json.load(open(a.measured))["ladders"]:
        for v in lad["variants"]:
            m = v.get("measured") or {}
            if not m or m.get("why") or lad["family"] not in ncu:
                continue
            key = norm(v["launch"])
            found = [k for k in ncu[lad["family"]] if k == key or k.startswith(key)]
            row = f"{lad['family']}/{v['name']}"
            if len(found) != 1:
                print(f"{row:34} {len(found)} ncu kernels match {key}")
                continue
            med = {k: statistics.median(x) for k, x in ncu[lad["family"]][found[0]].items()}
            gbps = (med["dram__bytes_read.sum"] + med["dram__bytes_write.sum"]) / med["gpu__time_duration.sum"]
            for metric, ours, theirs in (
                    ("occ %", m["occupancy_pct"], med["sm__warps_active.avg.pct_of_peak_sustained_active"]),
                    ("SM %", m["sm_pct"], med["sm__throughput.avg.pct_of_peak_sustained_elapsed"]),
                    ("DRAM %", m["dram_pct"], med["dram__throughput.avg.pct_of_peak_sustained_elapsed"]),
                    ("DRAM GB/s", m["dram_gbps"], gbps),
                    ("time us", m["duration_ns"] / 1e3, med["gpu__time_duration.sum"] / 1e3)):
                d = (ours - theirs) / theirs * 100 if theirs else 0.0
                over = abs(d) > a.tolerance and abs(ours - theirs) > 1.0
                bad += over
                print(f"{row:34.34} {metric:9} {ours:10.1f} {theirs:10.1f} {d:+6.1f}%{'  over' if over else ''}")
    print("all within %.0f %%" % a.tolerance if not bad else f"{bad} value(s) over {a.tolerance:.0f} %")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
