"""sitecustomize: off means off, the hidden sitecustomize still runs, programs that never import
torch keep their output, exit code and sys.path; torch without NVTX or imported early."""
import os
import shutil
import tempfile
import unittest

from harness import FAKE_TORCH, SITE_DIR, ProgramCase, ranged, result_of, run, STEP_MARK


class Off(ProgramCase):
    def check_off(self, mode):
        r = self.run_ok("prog_off.py", mode=mode)
        self.assertEqual(r["calls"], [])
        self.assertFalse(r["wrapped"], "torch.nn.Module.__call__ was wrapped")
        self.assertFalse(r["loaded"], "the trainscope_py package was imported")
        self.assertEqual(r["threads"], ["MainThread"])
        self.assertNotIn("PostImportFinder", r["finders"])

    def test_unset(self):
        self.check_off(None)

    def test_off(self):
        self.check_off("off")


class Chain(ProgramCase):
    def setUp(self):
        self.other = tempfile.mkdtemp(prefix="ts-user-site-")

    def tearDown(self):
        shutil.rmtree(self.other)

    def write_user_site(self, body):
        with open(os.path.join(self.other, "sitecustomize.py"), "w") as f:
            f.write(body)

    def run_chain(self, mode):
        return run("prog_chain.py", path=[SITE_DIR, self.other, FAKE_TORCH], mode=mode)

    def test_user_sitecustomize_runs(self):
        self.write_user_site("import sys\nUSER_MARK = 'user:' + __name__\nprint('USER-SITE-RAN')\n")
        for mode in (None, "lean"):
            proc = self.run_chain(mode)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertTrue(proc.stdout.startswith("USER-SITE-RAN\n"), proc.stdout)
            r = result_of(proc)
            self.assertEqual(r["user_mark"], "user:sitecustomize")
            self.assertEqual(r["calls"], ranged("forward") if mode else [])
            self.assertEqual(proc.stderr, "")

    def test_failing_user_sitecustomize_is_reported_as_python_does(self):
        self.write_user_site("raise ValueError('boom from the user')\n")
        alone = run("prog_plain.py", path=[self.other], mode=None)
        expected = ("Error in sitecustomize; set PYTHONVERBOSE for traceback:\n"
                    "ValueError: boom from the user\n")
        self.assertTrue(alone.stderr.startswith(expected), alone.stderr)  # Python's own wording
        proc = self.run_chain("lean")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertTrue(proc.stderr.startswith(expected), proc.stderr)
        r = result_of(proc)
        self.assertIsNone(r["user_mark"])
        self.assertEqual(r["calls"], ranged("forward"), "ours broke with the user's sitecustomize")

    def test_failing_user_sitecustomize_verbose_traceback(self):
        self.write_user_site("raise ValueError('boom from the user')\n")
        proc = run("prog_chain.py", path=[SITE_DIR, self.other, FAKE_TORCH], PYTHONVERBOSE="1")
        self.assertIn("Traceback (most recent call last)", proc.stderr)
        self.assertIn("ValueError: boom from the user", proc.stderr)


class PlainProgram(ProgramCase):
    def test_output_exit_code_and_path_unchanged(self):
        baseline = run("prog_plain.py", "x", "--y", path=[FAKE_TORCH], mode=None)
        self.assertEqual(baseline.returncode, 3)
        for mode in ("lean", "full"):
            ours = run("prog_plain.py", "x", "--y", path=[SITE_DIR, FAKE_TORCH], mode=mode,
                       TRAINSCOPE_PY_PREV_PATH=FAKE_TORCH)
            self.assertEqual((ours.returncode, ours.stdout, ours.stderr),
                             (baseline.returncode, baseline.stdout, baseline.stderr))

    def test_path_kept_without_prev_path(self):
        ours = run("prog_plain.py", path=[SITE_DIR, FAKE_TORCH])
        self.assertEqual(ours.returncode, 3)
        self.assertIn("path ['%s']" % SITE_DIR, ours.stdout)


class TorchVariants(ProgramCase):
    def test_nvtx_stub_leaves_torch_untouched(self):
        r = self.run_ok("prog_stub.py", FAKE_TORCH_NVTX_STUB="1")
        self.assertEqual(r, {"value": 2.0, "wrapped": False})

    def test_torch_imported_before_activate(self):
        r = self.run_ok("prog_already.py", mode=None)
        self.assertEqual(r["calls"], ranged("forward") + ranged("optimizer") + STEP_MARK)

    def test_missing_attributes_skip_their_hooks(self):
        drop = "torch.cuda:synchronize,torch:compiler,torch.optim.optimizer:Optimizer"
        proc = run("prog_chain.py", FAKE_TORCH_DROP=drop, FAKE_TORCH_NO_GLOBAL_HOOKS="1",
                   TRAINSCOPE_DEBUG="1")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(result_of(proc)["calls"], ranged("forward"))
        self.assertIn("trainscope-py: hook torch.cuda skipped: AttributeError", proc.stderr)
        self.assertIn("trainscope-py: hook torch.optim.optimizer skipped:", proc.stderr)

    def test_debug_line_only_with_trainscope_debug(self):
        quiet = run("prog_stub.py", "0.3")
        self.assertEqual(quiet.stderr, "")
        loud = run("prog_stub.py", "0.3", TRAINSCOPE_DEBUG="1")
        self.assertIn("trainscope-py: stack samples off: CUDA_INJECTION64_PATH is not set", loud.stderr)


if __name__ == "__main__":
    unittest.main()
