"""Runs chosen configurations of the PyTorch baseline script (../shared/bench/pytorch_seed_cnn.py)
without running all of them: the script's own code is executed unchanged, only its `run` helper is
wrapped so that configurations whose name does not match PATTERN are skipped.
    python3 bench/pytorch_baseline.py SCRIPT GROUP PATTERN
e.g. python3 bench/pytorch_baseline.py pytorch_seed_cnn.py resident '^resident_fp32_b128_noitem$'
Prints the script's JSON lines for the matching configurations."""
import re, sys

script, group, pattern = sys.argv[1], sys.argv[2], re.compile(sys.argv[3])
src = open(script).read()
assert src.rstrip().endswith("main()"), "unexpected baseline script layout"
ns = {"__name__": "pytorch_seed_cnn"}
exec(compile(src.rstrip()[: -len("main()")], script, "exec"), ns)
real_run = ns["run"]
ns["run"] = lambda name, *a, **k: real_run(name, *a, **k) if pattern.search(name) else None
sys.argv = [script, group]
ns["main"]()
