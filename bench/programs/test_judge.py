"""Unit tests of judge.py's parsing and judging, on fake analysis JSON (no torch, no GPU needed).

  python3 -m unittest bench/programs/test_judge.py   (or python3 bench/programs/test_judge.py)
"""
import io
import json
import os
import sys
import tempfile
import textwrap
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import judge  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))

PROGRAM = textwrap.dedent('''\
    """A fake corpus program.

    EXPECT: input_bound, launch_bound|host_bound
    NOT: sync_bound, amp_eligible
    HOST_FRAME: expected in __getitem__
    """
    import numpy as np


    class DS:
        def __getitem__(self, i):
            x = np.ones(3)
            return x * i


    def main():
        loss = 0
        total = loss.item()  # the sync
        return total
    ''')


def verdict(vid, severity="high", frames=None, key="frames"):
    v = {"id": vid, "severity": severity, "title": vid, "fix": "", "evidence": {"x_pct": 42.0}}
    if frames is not None:
        v[key] = frames
    return v


def analysis(*verdicts, judged=True, withheld=""):
    return {"steps": 40, "warmup_steps_skipped": 1, "wall_ns": 10**10, "verdicts_judged": judged,
            "verdicts_withheld": withheld, "verdicts": list(verdicts)}


class Fixture(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.path = os.path.join(self.dir, "fake_prog.py")
        with open(self.path, "w") as f:
            f.write(PROGRAM)
        self.spec = judge.parse_spec(self.path)

    def write(self, name, text):
        p = os.path.join(self.dir, name)
        with open(p, "w") as f:
            f.write(text)
        return p


class ParseSpec(Fixture):
    def test_lines(self):
        self.assertEqual(self.spec.expect, [["input_bound"], ["launch_bound", "host_bound"]])
        self.assertEqual(self.spec.forbid, ["sync_bound", "amp_eligible"])
        self.assertEqual(self.spec.host_frame, ("in", "__getitem__"))
        self.assertEqual(self.spec.frame_lines, {11, 12, 13})  # def __getitem__ .. return

    def test_none_expected(self):
        p = self.write("healthy.py", '"""x\n\nEXPECT: (none of the bottlenecks)\nNOT: input_bound, host_bound\n"""\n')
        s = judge.parse_spec(p)
        self.assertEqual(s.expect, [])
        self.assertEqual(s.forbid, ["input_bound", "host_bound"])
        self.assertIsNone(s.host_frame)

    def test_at_text_skips_docstring_and_comments(self):
        p = self.write("sync.py", '"""EXPECT: sync_bound\nHOST_FRAME: expected at loss.item()\n'
                                  'loss.item() in the docstring\n"""\n# loss.item() in a comment\n'
                                  'x = 1\nrunning += loss.item()\n')
        s = judge.parse_spec(p)
        self.assertEqual(s.host_frame, ("at", "loss.item()"))
        self.assertEqual(s.frame_lines, {7})

    def test_bare_host_frame(self):
        p = self.write("bare.py", '"""EXPECT: host_bound\nHOST_FRAME: expected\n"""\n')
        s = judge.parse_spec(p)
        self.assertEqual(s.host_frame, ("any", None))
        self.assertIsNone(s.frame_lines)

    def test_errors(self):
        for doc in ('EXPECT: input_bond', 'NOT: a|b', 'NOT: sync_bound|input_bound',
                    'EXPECT: sync_bound\nHOST_FRAME: maybe', 'EXPECT: sync_bound\nHOST_FRAME: expected in nowhere',
                    'EXPECT: sync_bound\nHOST_FRAME: expected at no_such_code()'):
            p = self.write("bad.py", f'"""{doc}\n"""\nx = 1\n')
            with self.assertRaises(ValueError, msg=doc):
                judge.parse_spec(p)

    def test_corpus_specs_parse(self):
        names = judge.programs_in(HERE)
        self.assertGreaterEqual(len(names), 7)
        for n in names:
            s = judge.parse_spec(os.path.join(HERE, n + ".py"))
            self.assertTrue(s.expect or s.forbid, n)


class Judge(Fixture):
    frame_ok = {"where": "__getitem__ (/root/bench/programs/fake_prog.py:12)", "pct": 61.5}

    def test_pass(self):
        a = analysis(verdict("input_bound", frames=[self.frame_ok]), verdict("host_bound", "moderate"),
                     verdict("low_utilization"))
        ok, found, frame, reasons = judge.judge(self.spec, a)
        self.assertTrue(ok, reasons)
        self.assertEqual(found, "input_bound(high), host_bound(moderate), low_utilization(high)")
        self.assertIn("fake_prog.py:12", frame)
        self.assertIn("62%", frame)

    def test_frames_of_the_either_verdict_count(self):
        a = analysis(verdict("input_bound", frames=[]), verdict("launch_bound", frames=[self.frame_ok]))
        self.assertTrue(judge.judge(self.spec, a)[0])

    def test_python_frames_key_and_structured_frame(self):
        f = {"function": "__getitem__", "file": "/x/fake_prog.py", "line": 13, "pct": 10}
        a = analysis(verdict("input_bound", frames=[f], key="python_frames"), verdict("host_bound"))
        ok, _, frame, reasons = judge.judge(self.spec, a)
        self.assertTrue(ok, reasons)
        self.assertIn("fake_prog.py:13", frame)

    def test_missing_forbidden_withheld(self):
        a = analysis(verdict("sync_bound"), verdict("launch_bound", frames=[self.frame_ok]))
        ok, _, _, reasons = judge.judge(self.spec, a)
        self.assertFalse(ok)
        self.assertIn("missing input_bound", reasons)
        self.assertIn("sync_bound fired", reasons)
        ok, found, _, reasons = judge.judge(self.spec, analysis(judged=False, withheld="need at least 10 steps (3 here)"))
        self.assertFalse(ok)
        self.assertEqual(found, "none")
        self.assertTrue(any("need at least 10 steps" in r for r in reasons))

    def test_frame_in_wrong_place(self):
        for where in ("main (fake_prog.py:18)",                      # this file, outside __getitem__
                      "__getitem__ (torch/utils/data/dataset.py:12)",  # another file
                      "fake_prog.py"):                                # no line, no function name
            a = analysis(verdict("input_bound", frames=[{"where": where, "pct": 80}]), verdict("host_bound"))
            ok, _, frame, reasons = judge.judge(self.spec, a)
            self.assertFalse(ok, where)
            self.assertIn("no Python frame in __getitem__", reasons)
            self.assertIn("(not in __getitem__)", frame)
        a = analysis(verdict("input_bound"), verdict("host_bound"))
        self.assertEqual(judge.judge(self.spec, a)[2], "no frames")

    def test_frame_as_the_h200_build_writes_it(self):
        f = {"where": "fake_prog.py:12", "function": "DS.__getitem__", "innermost": "_methods.py:132 _mean",
             "pct": 50.9}
        a = analysis(verdict("input_bound", frames=[f]), verdict("host_bound"))
        ok, _, frame, reasons = judge.judge(self.spec, a)
        self.assertTrue(ok, reasons)
        self.assertEqual(frame, "input_bound: fake_prog.py:12 (DS.__getitem__) 51%")
        f = dict(f, where="fake_prog.py:18", function="main")
        self.assertFalse(judge.judge(self.spec, analysis(verdict("input_bound", frames=[f]), verdict("host_bound")))[0])

    def test_frame_by_function_name_without_line(self):
        a = analysis(verdict("input_bound", frames=[{"where": "fake_prog.py in __getitem__", "pct": 5}]),
                     verdict("host_bound"))
        self.assertTrue(judge.judge(self.spec, a)[0])

    def test_frame_of_an_unexpected_verdict_does_not_count(self):
        a = analysis(verdict("input_bound"), verdict("host_bound"), verdict("low_utilization", frames=[self.frame_ok]))
        self.assertFalse(judge.judge(self.spec, a)[0])

    def test_exit_code_and_no_json(self):
        a = analysis(verdict("input_bound", frames=[self.frame_ok]), verdict("host_bound"))
        ok, _, _, reasons = judge.judge(self.spec, a, rc=139)
        self.assertFalse(ok)
        self.assertIn("program exited 139", reasons)
        ok, _, _, reasons = judge.judge(self.spec, None)
        self.assertFalse(ok)
        self.assertIn("no analysis JSON", reasons)


class Main(Fixture):
    def test_table_and_exit_code(self):
        res = tempfile.mkdtemp()
        good = analysis(verdict("input_bound", frames=[{"where": "fake_prog.py:11", "pct": 30}]), verdict("host_bound"))
        with open(os.path.join(res, "fake_prog.json"), "w") as f:
            json.dump(good, f)
        with open(os.path.join(res, "fake_prog.rc"), "w") as f:
            f.write("0\n")
        out = io.StringIO()
        with redirect_stdout(out):
            rc = judge.main([res, "--programs", self.dir])
        self.assertEqual(rc, 0, out.getvalue())
        self.assertIn("fake_prog", out.getvalue())
        self.assertIn("PASS", out.getvalue())
        with open(os.path.join(res, "fake_prog.json"), "w") as f:
            json.dump(analysis(verdict("sync_bound")), f)
        out = io.StringIO()
        with redirect_stdout(out):
            rc = judge.main([res, "--programs", self.dir, "--json"])
        self.assertEqual(rc, 1)
        doc = json.loads(out.getvalue())
        self.assertFalse(doc["ok"])
        self.assertFalse(doc["programs"][0]["ok"])

    def test_missing_results_fail(self):
        out = io.StringIO()
        with redirect_stdout(out):
            rc = judge.main([tempfile.mkdtemp(), "--programs", self.dir])
        self.assertEqual(rc, 1)
        self.assertIn("no analysis JSON", out.getvalue())


if __name__ == "__main__":
    unittest.main()
