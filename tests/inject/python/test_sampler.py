"""The stack sampler (PROTOCOL.md section 2): the stepping thread's frames, ids defined before use,
our frames left out, at most 48 frames, the -1 answer stops it; the ctypes path end to end."""
import ctypes.util
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from harness import HERE, SITE_DIR, ProgramCase, run, run_ok

sys.path.insert(0, SITE_DIR)
from trainscope_py import sampler as sampler_module  # noqa: E402  (no activate(): nothing hooked)
from trainscope_py.state import S  # noqa: E402


def check_ordering(test, events):
    """Ids from 1, consecutive, each defined before any stack or sample uses it, none twice."""
    frames, stacks = {}, set()
    for event in events:
        kind = event[0]
        if kind == "frame":
            test.assertEqual(event[1], len(frames) + 1)
            frames[event[1]] = event
        elif kind == "stack":
            test.assertEqual(event[1], len(stacks) + 1)
            test.assertTrue(all(f in frames for f in event[2]), event)
            test.assertTrue(0 < len(event[2]) <= 48, event)
            stacks.add(event[1])
        else:
            test.assertIn(event[3], stacks, event)
    return frames


class SamplerProgram(ProgramCase):
    @classmethod
    def setUpClass(cls):
        cls.r = run_ok("prog_sampler.py", TRAINSCOPE_PYTHON_HZ="200")

    def stacks_with(self, function):
        frames = {e[1]: e for e in self.r["events"] if e[0] == "frame"}
        stacks = {e[1]: [frames[f] for f in e[2]] for e in self.r["events"] if e[0] == "stack"}
        return {sid: st for sid, st in stacks.items() if any(f[2] == function for f in st)}

    def samples_of(self, stack_ids):
        return [e for e in self.r["events"] if e[0] == "sample" and e[3] in stack_ids]

    def test_ids_defined_before_use(self):
        frames = check_ordering(self, self.r["events"])
        self.assertTrue(frames)

    def test_main_thread_before_the_first_step(self):
        stacks = self.stacks_with("main_marker_leaf")
        self.assertTrue(stacks, "no sample inside main_marker_leaf")
        for st in stacks.values():
            names = [f[2] for f in st]
            at = names.index("main_marker_leaf")
            self.assertEqual(names[at:], ["main_marker_leaf", "main_marker", "<module>"])
            self.assertTrue(all(f[3].endswith("prog_sampler.py") for f in st))
        samples = self.samples_of(stacks)
        self.assertGreaterEqual(len(samples), 15)
        self.assertEqual({s[1] for s in samples}, {self.r["main_tid"]})

    def test_stepping_thread_after_its_step(self):
        stacks = self.stacks_with("trainer_marker")
        self.assertTrue(stacks, "no sample of the thread that stepped")
        self.assertEqual({s[1] for s in self.samples_of(stacks)}, {self.r["trainer_tid"]})

    def test_at_most_48_innermost_frames(self):
        stacks = self.stacks_with("deep")
        self.assertTrue(stacks)
        for st in stacks.values():
            names = [f[2] for f in st]
            self.assertEqual(len(st), 48)  # the innermost 48 of 70 + 4 frames
            self.assertEqual(names[-40:], ["deep"] * 40)

    def test_no_frame_of_ours_and_monotonic_times(self):
        files = {e[3] for e in self.r["events"] if e[0] == "frame"}
        self.assertFalse([f for f in files if f.startswith(SITE_DIR)])
        times = [e[2] for e in self.r["events"] if e[0] == "sample"]
        self.assertEqual(times, sorted(times))
        self.assertTrue(self.r["t0"] <= times[0] and times[-1] <= self.r["t1"])

    def test_zero_hz_starts_no_sampler(self):
        r = run_ok("prog_sampler.py", TRAINSCOPE_PYTHON_HZ="0")
        self.assertEqual(r["events"], [])


class Sink:
    def __init__(self, answer=0):
        self.events, self.answer = [], answer

    def frame(self, *args):
        self.events.append(["frame"] + list(args))
        return self.answer

    def stack(self, stack_id, frame_ids):
        self.events.append(["stack", stack_id, list(frame_ids)])
        return self.answer

    def sample(self, *args):
        self.events.append(["sample"] + list(args))
        return self.answer


class SampleOnce(unittest.TestCase):
    """sample_once() in this process: the sampled thread is this (main) thread."""

    def test_frames_of_this_test_and_none_of_ours(self):
        sampler, sink = sampler_module.Sampler(100, SITE_DIR), Sink()
        self.assertTrue(sampler.sample_once(sink))
        self.assertTrue(sampler.sample_once(sink))
        frames = check_ordering(self, sink.events)
        names = [e[2] for e in frames.values()]
        self.assertIn("SampleOnce.test_frames_of_this_test_and_none_of_ours", names)
        self.assertFalse([e for e in frames.values() if e[3].startswith(SITE_DIR)])
        samples = [e for e in sink.events if e[0] == "sample"]
        self.assertEqual([s[1] for s in samples], [S.step_thread[1]] * 2)

    def test_refused_call_stops(self):
        sampler = sampler_module.Sampler(100, SITE_DIR)
        self.assertFalse(sampler.sample_once(Sink(answer=-1)))

    def test_same_place_interned_once(self):
        sampler, sink = sampler_module.Sampler(100, SITE_DIR), Sink()
        for _ in range(3):
            sampler.sample_once(sink)  # one line: the same frames and stack each time
        self.assertEqual(len([e for e in sink.events if e[0] == "stack"]), 1)
        self.assertEqual(len([e for e in sink.events if e[0] == "sample"]), 3)


class CtypesLibrary(ProgramCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ts-fake-inject-")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_entry_points_through_ctypes(self):
        cc = shutil.which("cc") or shutil.which("gcc")
        if not cc:
            self.skipTest("no C compiler")
        lib = os.path.join(self.tmp, "libfake_inject.so")
        subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", lib, os.path.join(HERE, "fake_inject.c")],
                       check=True)
        r = run_ok("prog_ctypes.py", CUDA_INJECTION64_PATH=lib, TRAINSCOPE_PYTHON_HZ="200")
        self.assertGreater(r["frames"], 0)
        self.assertGreater(r["stacks"], 0)
        self.assertGreaterEqual(r["samples"], 10)
        self.assertEqual(r["bad"], 0, "an id used before its definition, or a bad argument")

    def test_library_without_the_symbols(self):
        libc = ctypes.util.find_library("c")
        if not libc:
            self.skipTest("no libc found")
        proc = run("prog_stub.py", "0.3", CUDA_INJECTION64_PATH=libc, TRAINSCOPE_DEBUG="1")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("trainscope-py: stack samples off: %s:" % libc, proc.stderr)
        quiet = run("prog_stub.py", "0.3", CUDA_INJECTION64_PATH=libc)
        self.assertEqual(quiet.stderr, "")


if __name__ == "__main__":
    unittest.main()
