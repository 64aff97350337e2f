"""Runs chosen configurations of the PyTorch baseline script (../shared/bench/pytorch_seed_cnn.py)
without running all of them: the script's own code is executed unchanged, only its `run` helper is
wrapped so that configurations whose name does not match PATTERN are skipped.
    python3 bench/pytorch_baseline.py SCRIPT GROUP PATTERN
e.g. python3 bench/pytorch_baseline.py pytorch_seed_cnn.py resident '^resident_fp32_b128_noitem$'
Prints the script's JSON lines for the matching configurations."""
import re, sys

script, group, pattern = sys.argv[1], sys.argv[2], re.compile(sys.argv[3])
src = open(script).read()
# The script ends either in a bare `main()` call or in an `if __name__ == "__main__":` guard. Run
# under another __name__, the guard skips its body; a bare trailing call is cut off instead.
body = src.rstrip()
if body.endswith("\nmain()"):
    body = body[: -len("main()")]
ns = {"__name__": "pytorch_seed_cnn"}
exec(compile(body, script, "exec"), ns)
assert callable(ns.get("run")) and callable(ns.get("main")), f"{script}: no run() and main() to call"
real_run = ns["run"]
ns["run"] = lambda name, *a, **k: real_run(name, *a, **k) if pattern.search(name) else None
sys.argv = [script, group]
ns["main"]()
