"""Running the test programs (programs/) as a recorded program would run: python3 with the package
folder first on PYTHONPATH and the fake torch after it, in a clean TRAINSCOPE_* environment."""
import json
import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
SITE_DIR = os.path.join(ROOT, "profiling", "inject", "python", "trainscope_site")
FAKE_TORCH = os.path.join(HERE, "fake_torch")
PROGRAMS = os.path.join(HERE, "programs")


def clean_env(**extra):
    """The environment without TRAINSCOPE_/FAKE_TORCH_/injection settings or PYTHONPATH, plus `extra`."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TRAINSCOPE_", "FAKE_TORCH_", "CUDA_INJECTION", "NVTX_INJECTION"))
           and k not in ("PYTHONPATH", "PYTHONVERBOSE", "PYTHONSTARTUP")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update({k: v for k, v in extra.items() if v is not None})
    return env


def run(program, *args, path=None, mode="lean", **env):
    """Run programs/<program>; path: the PYTHONPATH entries (default: ours, then the fake torch)."""
    entries = [SITE_DIR, FAKE_TORCH] if path is None else path
    full_env = clean_env(PYTHONPATH=os.pathsep.join(entries), TRAINSCOPE_PYTHON=mode, **env)
    return subprocess.run([sys.executable, os.path.join(PROGRAMS, program)] + list(args),
                          cwd=PROGRAMS, env=full_env, capture_output=True, text=True, timeout=120)


def result_of(proc):
    """The program's RESULT line as a dict (fails the test with its output when there is none)."""
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT:"):
            return json.loads(line[len("RESULT:"):])
    raise AssertionError("no RESULT line (exit %d)\nstdout:\n%s\nstderr:\n%s"
                         % (proc.returncode, proc.stdout, proc.stderr))


def site_line(program, tag):
    """The line number of the `# SITE:<tag>` marker in programs/<program>."""
    with open(os.path.join(PROGRAMS, program)) as f:
        for number, line in enumerate(f, 1):
            if re.search(r"#\s*SITE:%s\b" % re.escape(tag), line):
                return number
    raise AssertionError("no SITE:%s in %s" % (tag, program))


def ranged(name):
    """The NVTX events of one range without children, as the fake torch records them."""
    return [["push", name], ["pop"]]


STEP_MARK = [["mark", "trainscope:step"]]


def run_ok(program, *args, **kwargs):
    """The RESULT of a program that must exit 0."""
    proc = run(program, *args, **kwargs)
    if proc.returncode != 0:
        raise AssertionError("%s exited %d\nstderr:\n%s" % (program, proc.returncode, proc.stderr))
    return result_of(proc)


class ProgramCase(unittest.TestCase):
    maxDiff = None

    def run_ok(self, program, *args, **kwargs):
        return run_ok(program, *args, **kwargs)
