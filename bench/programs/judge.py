#!/usr/bin/env python3
"""Checks TrainScope's verdicts on the corpus programs against what each program says it should get.

  judge.py RESULTS_DIR [--programs DIR] [--only NAME,NAME] [--json]

Each program (bench/programs/NAME.py) states in its module docstring, one per line:
  EXPECT: a, b|c       every comma-separated item must fire; "b|c" means either. "EXPECT: (...)" = none required
  NOT: x, y            none of these may fire
  HOST_FRAME: expected [in FUNC | at TEXT]
                       an expected verdict that fired must show a Python frame of this program
                       ("in FUNC": a line inside def FUNC; "at TEXT": a line whose code contains TEXT)
RESULTS_DIR holds NAME.json (trainscope-run --analyze NAME.tsession --json) and, when run_corpus.sh
wrote it, NAME.rc (the program's exit code under trainscope-run).

Assumed JSON (profiling/analysis/report.cpp to_json): a top-level object with "verdicts_judged",
"verdicts_withheld", "steps" and "verdicts": [{"id", "severity", "evidence": {...}, "frames": [...]}].
"frames" (the Python frames behind a verdict; "python_frames" is read too) is a list of objects with
"where" (text naming FILE.py:LINE) and "pct", optionally "function" (as the H200 build of 2026-12-03
writes them: {"where": "main_thread_loader.py:45", "function": "SyntheticPhotos.__getitem__",
"innermost": "_methods.py:132 _mean", "pct": 50.9}); objects that carry "file" and "line" are read
from those instead.
Prints a table (program, expected, found, frame evidence, PASS/FAIL); exits 1 if any program fails.
"""
import argparse
import ast
import json
import os
import re
import sys

# profiling/analysis/verdicts.cpp verdict_ids(), plus host_bound (being added)
KNOWN_VERDICTS = {"input_bound", "sync_bound", "launch_bound", "host_bound", "low_utilization",
                  "pageable_memcpy", "memory_pressure", "amp_eligible", "amp_overflow",
                  "communication_bound", "throttled", "shared_gpu"}
FRAME_LOC = re.compile(r"([^\s:()\[\]'\"]+\.py):(\d+)")


class Spec:
    """What one program's docstring promises."""

    def __init__(self, name, path):
        self.name, self.path = name, path
        self.expect = []        # list of alternatives, e.g. [["input_bound"], ["launch_bound", "host_bound"]]
        self.forbid = []
        self.host_frame = None  # None, or (kind, arg): ("any", None), ("in", FUNC), ("at", TEXT)
        self.frame_lines = None  # the program's lines that satisfy HOST_FRAME (None: any line of the file)

    def describe_frame(self):
        return "this program" if self.host_frame[0] == "any" else f"{self.host_frame[0]} {self.host_frame[1]}"

    def describe(self):
        parts = ["|".join(g) for g in self.expect] or ["-"]
        s = ", ".join(parts)
        if self.forbid:
            s += "; not " + ", ".join(self.forbid)
        if self.host_frame:
            s += "; frame " + self.describe_frame()
        return s


def _ids(text, where):
    out = [t.strip() for t in text.split(",") if t.strip()]
    for group in out:
        for v in group.split("|"):
            if v not in KNOWN_VERDICTS:
                raise ValueError(f"{where}: unknown verdict id {v!r}")
    return out


def parse_spec(path):
    """Reads EXPECT / NOT / HOST_FRAME from the module docstring of the program at path."""
    name = os.path.splitext(os.path.basename(path))[0]
    with open(path, encoding="utf-8") as f:
        source = f.read()
    tree = ast.parse(source, filename=path)
    doc = ast.get_docstring(tree) or ""
    spec = Spec(name, path)
    for line in doc.splitlines():
        key, sep, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if not sep:
            continue
        if key == "EXPECT":
            if not value.startswith("("):
                spec.expect = [g.split("|") for g in _ids(value, f"{name} EXPECT")]
        elif key == "NOT":
            spec.forbid = _ids(value, f"{name} NOT")
            if any("|" in v for v in spec.forbid):
                raise ValueError(f"{name} NOT: '|' has no meaning there")
        elif key == "HOST_FRAME":
            words = value.split(None, 2)
            if not words or words[0] != "expected":
                raise ValueError(f"{name} HOST_FRAME: expected 'expected [in FUNC | at TEXT]', got {value!r}")
            if len(words) == 1:
                spec.host_frame = ("any", None)
            elif len(words) == 3 and words[1] in ("in", "at"):
                spec.host_frame = (words[1], words[2])
            else:
                raise ValueError(f"{name} HOST_FRAME: expected 'expected [in FUNC | at TEXT]', got {value!r}")
    if spec.host_frame and spec.host_frame[0] != "any":
        spec.frame_lines = frame_lines(tree, source, *spec.host_frame, where=name)
    return spec


def frame_lines(tree, source, kind, arg, where):
    """The line numbers of the program that satisfy 'in FUNC' or 'at TEXT'."""
    if kind == "in":
        lines = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == arg:
                lines.update(range(node.lineno, node.end_lineno + 1))
        if not lines:
            raise ValueError(f"{where} HOST_FRAME: no function {arg!r} in the program")
        return lines
    doc_end = tree.body[0].end_lineno if tree.body and isinstance(tree.body[0], ast.Expr) else 0
    lines = {i for i, text in enumerate(source.splitlines(), 1) if i > doc_end and arg in text.split("#")[0]}
    if not lines:
        raise ValueError(f"{where} HOST_FRAME: no code line contains {arg!r}")
    return lines


def frame_location(frame):
    """(file basename or None, line or None, text) of one frame object."""
    if not isinstance(frame, dict):
        return None, None, str(frame)
    text = str(frame.get("where", ""))
    fn = str(frame.get("function", "") or "")
    if "file" in frame:
        line = frame.get("line")
        text = text or f"{frame['file']}:{line}"
        text += f" ({fn})" if fn else ""
        return os.path.basename(str(frame["file"])), int(line) if line is not None else None, text
    text += f" ({fn})" if fn and fn not in text else ""
    m = FRAME_LOC.findall(text)
    if m:
        f, line = m[-1]
        return os.path.basename(f), int(line), text
    return None, None, text


def frame_matches(spec, frame):
    base, line, text = frame_location(frame)
    mine = spec.name + ".py"
    if base != mine and mine not in text:
        return False
    if spec.frame_lines is None:
        return True
    if line is not None and line in spec.frame_lines:
        return True
    # 'in FUNC': a frame that names the function but gives no usable line
    return spec.host_frame[0] == "in" and line is None and re.search(rf"\b{re.escape(spec.host_frame[1])}\b", text)


def pct_text(frame):
    p = frame.get("pct") if isinstance(frame, dict) else None
    return f" {p:.0f}%" if isinstance(p, (int, float)) else ""


def judge(spec, analysis, rc=None):
    """Returns (ok, found text, frame text, reasons) for one program's analysis object."""
    reasons = []
    if rc not in (None, 0):
        reasons.append(f"program exited {rc}")
    if analysis is None:
        return False, "-", "-", reasons + ["no analysis JSON"]
    verdicts = analysis.get("verdicts") or []
    fired = {v.get("id"): v for v in verdicts if isinstance(v, dict)}
    found = ", ".join(f"{v.get('id')}({v.get('severity')})" for v in verdicts if isinstance(v, dict)) or "none"
    if not analysis.get("verdicts_judged", True):
        reasons.append("verdicts withheld: " + str(analysis.get("verdicts_withheld", "")))
    matched = []
    for group in spec.expect:
        hit = [v for v in group if v in fired]
        if hit:
            matched += hit
        else:
            reasons.append("missing " + "|".join(group))
    for v in spec.forbid:
        if v in fired:
            reasons.append(f"{v} fired")
    frame_text = "-"
    if spec.host_frame:
        pool = matched if spec.expect else list(fired)
        frames = [(v, f) for v in pool for f in (fired[v].get("frames") or fired[v].get("python_frames") or [])]
        good = [(v, f) for v, f in frames if frame_matches(spec, f)]
        if good:
            v, f = good[0]
            frame_text = f"{v}: {frame_location(f)[2]}{pct_text(f)}"
        else:
            if frames:
                v, f = frames[0]
                frame_text = f"{v}: {frame_location(f)[2]}{pct_text(f)} (not {spec.describe_frame()})"
            else:
                frame_text = "no frames"
            reasons.append("no Python frame " + ("of the program" if spec.host_frame[0] == "any"
                                                 else spec.describe_frame()))
    return not reasons, found, frame_text, reasons


def load_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def read_rc(path):
    try:
        with open(path, encoding="utf-8") as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def programs_in(directory):
    names = []
    for fn in sorted(os.listdir(directory)):
        if not fn.endswith(".py") or fn in ("judge.py", "test_judge.py"):
            continue
        with open(os.path.join(directory, fn), encoding="utf-8") as f:
            if re.search(r"^(EXPECT|NOT):", f.read(), re.M):
                names.append(fn[:-3])
    return names


def table(rows):
    heads = ("program", "expected", "found", "frame evidence", "result")
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(heads)]
    widths = [min(w, 60) for w in widths]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    out = [fmt.format(*heads), fmt.format(*("-" * w for w in widths))]
    out += [fmt.format(*r) for r in rows]
    return "\n".join(out)


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="judge TrainScope's verdicts on bench/programs")
    ap.add_argument("results", help="folder with NAME.json (and NAME.rc) per program")
    ap.add_argument("--programs", default=here, help="folder of the programs (default: this script's)")
    ap.add_argument("--only", default="", help="comma-separated program names")
    ap.add_argument("--json", action="store_true", help="print the results as one JSON object")
    args = ap.parse_args(argv)
    names = [n for n in args.only.split(",") if n] or programs_in(args.programs)
    rows, results, ok_all = [], [], True
    for name in names:
        spec = parse_spec(os.path.join(args.programs, name + ".py"))
        analysis = load_json(os.path.join(args.results, name + ".json"))
        rc = read_rc(os.path.join(args.results, name + ".rc"))
        ok, found, frame, reasons = judge(spec, analysis, rc)
        ok_all &= ok
        rows.append((name, spec.describe(), found, frame, "PASS" if ok else "FAIL: " + "; ".join(reasons)))
        results.append(dict(program=name, expected=spec.describe(), found=found, frame=frame, ok=ok,
                            reasons=reasons))
    if args.json:
        print(json.dumps(dict(ok=ok_all, programs=results), indent=1))
    else:
        print(table(rows))
        print(f"\n{sum(r['ok'] for r in results)} of {len(results)} passed")
    return 0 if ok_all else 1


if __name__ == "__main__":
    sys.exit(main())
