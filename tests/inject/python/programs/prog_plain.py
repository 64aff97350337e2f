"""A program that never imports torch: its output, sys.path and exit code must be its own."""
import sys

print("stdout line", sys.argv[1:])
print("stderr line", file=sys.stderr)
print("path", [p for p in sys.path if "trainscope_site" in p])
print("torch", "torch" in sys.modules)
sys.exit(3)
