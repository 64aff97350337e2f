#!/usr/bin/env python3
"""Writes a large PyTorch profiler trace for bench/import_bench.sh: the events of a real trace
(default: the Kineto ResNet-50 sample) repeated, each copy shifted in time by the source's span,
with correlation ids, flow ids and ProfilerStep numbers shifted so copies do not link to each
other, until the JSON text reaches the wanted size. Streams the output; never into the repo.
usage: import_bench.py SOURCE.json[.gz] OUT.json BYTES"""
import gzip
import json
import sys


def main():
    src, out, target = sys.argv[1], sys.argv[2], int(float(sys.argv[3]))
    with (gzip.open(src, "rt") if src.endswith(".gz") else open(src)) as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    head = {k: v for k, v in doc.items() if k != "traceEvents"} if isinstance(doc, dict) else {}
    timed = [e for e in events if e.get("ph") != "M" and isinstance(e.get("ts"), (int, float))]
    lo = min(e["ts"] for e in timed)
    hi = max(e["ts"] + e.get("dur", 0) for e in timed)
    span = int(hi - lo) + 1000
    steps = sum(1 for e in timed if str(e.get("name", "")).startswith("ProfilerStep#"))
    # Each event as a %-format template: ts, correlation, flow id and step number filled per copy.
    templates = []
    for e in events:
        if e.get("ph") == "M":
            continue
        e = json.loads(json.dumps(e))
        e["ts"] = "@TS@"
        if "id" in e and isinstance(e["id"], int):
            e["id"] = "@ID@"
        args = e.get("args")
        if isinstance(args, dict) and isinstance(args.get("correlation"), int):
            args["correlation"] = "@CORR@"
        step = None
        name = str(e.get("name", ""))
        if name.startswith("ProfilerStep#"):
            step = int(name[13:])
            e["name"] = "ProfilerStep#@STEP@"
        text = json.dumps(e).replace("%", "%%")
        text = (text.replace('"@TS@"', "%(ts)s").replace('"@ID@"', "%(id)d")
                .replace('"@CORR@"', "%(corr)d").replace("@STEP@", "%(step)d"))
        templates.append((text, e, step))
    originals = [e for e in events if e.get("ph") != "M"]
    meta = [e for e in events if e.get("ph") == "M"]
    written = 0
    with open(out, "w") as o:
        prefix = json.dumps(head)[:-1] + (", " if head else "") + '"traceEvents": [\n' if head else '{"traceEvents": [\n'
        o.write(prefix)
        written += len(prefix)
        first = True
        for m in meta:
            line = ("" if first else ",\n") + json.dumps(m)
            o.write(line)
            written += len(line)
            first = False
        copy = 0
        while written < target:
            shift = copy * span
            for (text, _, step), e in zip(templates, originals):
                corr = (e.get("args") or {}).get("correlation", 0) if isinstance(e.get("args"), dict) else 0
                fid = e.get("id", 0) if isinstance(e.get("id"), int) else 0
                values = {"ts": repr(e["ts"] + shift) if isinstance(e["ts"], float) else str(e["ts"] + shift),
                          "corr": (corr + copy * 10_000_000) % 4_000_000_000 if isinstance(corr, int) else 0,
                          "id": fid + copy * 10_000_000, "step": (step or 0) + copy * max(steps, 1)}
                line = ("" if first else ",\n") + text % values
                o.write(line)
                written += len(line)
                first = False
                if written >= target:
                    break
            copy += 1
        o.write("\n]}\n")
    print(f"{out}: {written / 1e6:.1f} MB of JSON, {copy} copies of {len(originals)} events of {src}")


if __name__ == "__main__":
    main()
