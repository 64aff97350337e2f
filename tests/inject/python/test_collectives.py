"""`comm: ...` ranges of torch.distributed collectives and DDP (PROTOCOL.md section 1), on the fake
torch: blocking and async collectives, both names of a function, nesting, DDP's buffer broadcast,
the timed default comm hook, and a program's own comm hook chained or swapped in, never refused."""
import unittest

from harness import ProgramCase, ranged, run_ok, site_line


def site(tag):
    return "prog_dist.py:%d" % site_line("prog_dist.py", tag)


class Collectives(ProgramCase):
    @classmethod
    def setUpClass(cls):
        cls.r = run_ok("prog_dist.py")

    def test_blocking_and_async_collectives(self):
        expected = (ranged("comm: all_reduce " + site("allreduce"))
                    + ranged("comm: barrier " + site("barrier"))
                    + [["start", "comm: async all_reduce " + site("async"), 1]]
                    + ranged("comm: wait all_reduce " + site("wait")) + [["end", 1]]
                    + [["start", "comm: async broadcast " + site("async_pos"), 2]]
                    + ranged("comm: wait broadcast " + site("wait_pos")) + [["end", 2]]
                    + ranged("comm: all_gather_object " + site("object"))
                    + ranged("comm: reduce_scatter_tensor " + site("c10d")))
        self.assertEqual(self.r["blocking"], expected)

    def test_the_collectives_still_run(self):
        self.assertEqual(self.r["c10d"], [
            ["all_reduce", False], ["barrier", False], ["all_reduce", True], ["wait", "all_reduce"],
            ["broadcast", True], ["wait", "broadcast"], ["all_gather", False],
            ["reduce_scatter_tensor", False]])
        self.assertEqual(self.r["objects"], [3])

    def test_ddp_default_hook_times_each_bucket(self):
        self.assertEqual(self.r["plain_values"], ["allreduced 0 by pg", "allreduced 1 by pg"])
        self.assertEqual(self.r["plain_hooks"], ["allreduce_hook"])
        calls = self.r["plain_calls"]
        self.assertEqual(calls[:4], [["push", "forward"], ["push", "comm: ddp broadcast buffers"], ["pop"], ["pop"]])
        starts = [c for c in calls if c[0] == "start"]
        self.assertEqual([c[1] for c in starts], ["comm: async ddp all_reduce bucket 0",
                                                  "comm: async ddp all_reduce bucket 1"])
        self.assertEqual([c for c in calls if c[0] == "end"], [["end", starts[0][2]], ["end", starts[1][2]]])

    def test_a_program_hook_before_the_first_forward_is_chained(self):
        self.assertEqual(self.r["early_values"], ["user early 0"])
        names = [c[1] for c in self.r["early_calls"] if c[0] == "start"]
        self.assertEqual(names, ["comm: async ddp all_reduce bucket 0"])

    def test_a_program_hook_after_the_first_forward_replaces_the_default(self):
        self.assertEqual(self.r["late_values"], ["user late 0"])
        self.assertEqual(self.r["late_hooks"], ["allreduce_hook", "user_hook"])
        names = [c[1] for c in self.r["late_calls"] if c[0] == "start"]
        self.assertEqual(names, ["comm: async ddp all_reduce bucket 0"])

    def test_builtin_hook_and_mixed_precision_step_aside(self):
        self.assertEqual(self.r["aside_values"], [None, None])
        self.assertEqual(self.r["aside_calls"], ranged("forward") * 3)
        self.assertEqual(self.r["unseen_hooks"], [])


class Skipped(ProgramCase):
    def test_skip_leaves_torch_distributed_alone(self):
        r = run_ok("prog_dist.py", TRAINSCOPE_PYTHON_SKIP="distributed,ddp")
        self.assertEqual(r["blocking"], [])
        self.assertEqual(r["plain_values"], [None, None])
        self.assertEqual(r["plain_hooks"], [])


if __name__ == "__main__":
    unittest.main()
