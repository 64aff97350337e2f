"""The hooks' NVTX sequence on a fake training loop (PROTOCOL.md section 1): phases, step marks,
sync call sites, GradScaler, exceptions, full mode's module ranges, torch.compile, fork, spawn."""
import unittest

from harness import ProgramCase, STEP_MARK, ranged, run_ok, site_line


def iteration(item_line):
    """One iteration of prog_loop.py's loop, as the library must see it."""
    return (ranged("data") + ranged("forward") + ranged("forward") + ranged("backward")
            + ranged("optimizer") + STEP_MARK + ranged("sync: .item() prog_loop.py:%d" % item_line))


class Sequence(ProgramCase):
    @classmethod
    def setUpClass(cls):
        cls.r = run_ok("prog_loop.py")

    def test_training_loop(self):
        item = site_line("prog_loop.py", "item")
        expected = ranged("data") + iteration(item) + iteration(item) + ranged("data")
        self.assertEqual(self.r["loop"], expected)
        self.assertEqual(self.r["running"], 3.0)

    def test_the_insight_mark_comes_once_before_the_first_range(self):
        # The library's meta python.insight: made at the first event, so a process that only
        # imports torch (a spawned DataLoader worker) makes no NVTX call at all.
        self.assertEqual(self.r["insight"], [["mark", "trainscope:python lean"]])
        self.assertEqual(self.r["first"], ["mark", "trainscope:python lean"])

    def test_cpu_tensors_are_not_syncs(self):
        self.assertEqual(self.r["cpu"], [])

    def test_sync_call_sites(self):
        def site(call, tag):
            return ranged("sync: %s prog_loop.py:%d" % (call, site_line("prog_loop.py", tag)))
        expected = (site(".cpu()", "cpu") + site(".tolist()", "tolist") + site(".to()", "to")
                    + site(".to()", "to_device") + site(".to()", "to_kw") + site(".to()", "to_tensor")
                    + site(".numpy()", "numpy") + site("torch.cuda.synchronize()", "sync")
                    + site(".item()", "internal"))
        self.assertEqual(self.r["sync"], expected)


class GradScaler(ProgramCase):
    def check(self, r):
        one_step = ranged("optimizer") + STEP_MARK
        self.assertIsNone(r["skipped"])
        self.assertEqual(r["skipped_calls"], one_step, "a skipped step must still be marked")
        self.assertEqual(r["ran"], "sgd-step-result")
        self.assertEqual(r["ran_calls"], one_step, "GradScaler.step + optimizer.step is one step")
        self.assertTrue(r["late_patched"], "torch.cuda.amp imported late was not hooked")
        self.assertEqual((r["late"], r["late_calls"]), ("sgd-step-result", one_step))
        self.assertEqual((r["direct"], r["direct_calls"]), ("sgd-step-result", one_step))

    def test_global_step_hooks(self):
        self.check(self.run_ok("prog_scaler.py"))

    def test_without_global_step_hooks(self):
        self.check(self.run_ok("prog_scaler.py", FAKE_TORCH_NO_GLOBAL_HOOKS="1"))


class Exceptions(ProgramCase):
    @classmethod
    def setUpClass(cls):
        cls.r = run_ok("prog_exceptions.py")

    def test_forward_exception_keeps_depth(self):
        self.assertTrue(self.r["same_exception"])
        self.assertTrue(self.r["same_result"])
        self.assertEqual(self.r["forward_calls"], ranged("forward") + ranged("forward"))
        self.assertEqual(self.r["fwd_depth"], 0)

    def test_optimizer_step_that_raised_is_closed_at_the_next_step(self):
        self.assertEqual(self.r["step_error"], "closure failed")
        self.assertEqual(self.r["step_result"], "sgd-step-result")
        self.assertEqual(self.r["opt_calls"], ranged("optimizer") + ranged("optimizer") + STEP_MARK)
        self.assertEqual(self.r["opt_depth"], 0)
        self.assertEqual(self.r["opt_then_forward_calls"],
                         ranged("optimizer") + ranged("forward") + ranged("optimizer") + STEP_MARK)

    def test_phases_inside_a_step_stay_inside(self):
        self.assertEqual(self.r["closure_calls"], [["push", "optimizer"]] + ranged("forward")
                         + ranged("backward") + [["pop"]] + STEP_MARK)

    def test_sync_exception_passes_unchanged(self):
        self.assertEqual(self.r["numpy_error"], "can't convert cuda:0 device type tensor to numpy.")
        line = site_line("prog_exceptions.py", "numpy")
        self.assertEqual(self.r["numpy_calls"], ranged("sync: .numpy() prog_exceptions.py:%d" % line))
        self.assertEqual(self.r["sync_depth"], 0)

    def test_stop_iteration_and_wrappers(self):
        self.assertEqual(self.r["epoch"], [1.0, 2.0])
        self.assertEqual(self.r["wrapped"], ["_wrapped_call_impl", "_wrapped_call_impl", True, "item",
                                             "torch.cuda"])


class FullMode(ProgramCase):
    def test_module_ranges(self):
        r = self.run_ok("prog_full.py", mode="full")
        model = [["push", "forward"], ["push", "module: body (Sequential)"],
                 ["push", "module: body.0 (Linear)"], ["pop"],
                 ["push", "module: body.1 (Sequential)"], ["push", "module: body.1.0 (ReLU)"], ["pop"],
                 ["pop"], ["pop"], ["pop"]]
        self.assertEqual(r["first"], model + ranged("forward"))  # the loss module is a forward
        self.assertEqual(r["again"], model)
        self.assertEqual(r["stray"], [["push", "forward"], ["push", "module: ReLU"], ["pop"], ["pop"]])

    def test_lean_has_no_module_ranges(self):
        r = self.run_ok("prog_full.py", mode="lean")
        self.assertEqual(r["first"], ranged("forward") + ranged("forward"))


class Compile(ProgramCase):
    def test_nothing_while_compiling(self):
        r = self.run_ok("prog_compile.py")
        self.assertEqual(r["compiling"], [])
        self.assertEqual(r["after"], ranged("forward"))


class Processes(ProgramCase):
    def test_forked_child_emits_nothing(self):
        r = self.run_ok("prog_fork.py", TRAINSCOPE_PYTHON_HZ="200")
        self.assertEqual(r["child_status"], 0)
        self.assertEqual(r["child"], {"calls": [], "threads": ["MainThread"], "on": False})
        self.assertEqual(r["parent_calls"], ranged("forward"), "the parent stays on")

    def test_spawned_children_run_and_stay_quiet(self):
        r = self.run_ok("prog_spawn.py")
        self.assertEqual(len(r["children"]), 2)
        for child in r["children"]:
            self.assertEqual(child["exitcode"], 0)
            self.assertEqual(child["calls"], [])
            self.assertEqual(child["threads"], ["MainThread"])


if __name__ == "__main__":
    unittest.main()
