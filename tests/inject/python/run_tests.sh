#!/bin/sh
# The Python insight's tests (profiling/inject/python/PROTOCOL.md): unittest over tests/inject/python,
# on a fake torch (fake_torch/), no GPU and no real PyTorch needed. Exits non-zero when a test fails.
# PYTHON=/path/to/python3 picks the interpreter.
set -eu
cd "$(dirname "$0")"
export PYTHONDONTWRITEBYTECODE=1
exec "${PYTHON:-python3}" -m unittest discover -s . -p 'test_*.py' "$@"
