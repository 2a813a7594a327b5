#!/usr/bin/env python3
"""RapidCheck shrinks a planted fault to the minimum.

usage: planted_fault_shrinks.py PLANTED_PROPERTIES [--mutant ID] [--max-size N]

PLANTED_PROPERTIES is the property binary with a fault planted in the model
(tests/CMakeLists.txt builds it from the build's own objects and the
mutant's patched files; by default mutant 9, "strict map, local larger:
(r + 1) // (L / R)", which first fails at (r, L, R) = (1, 2, 1)). This runs
every property with the CI seed and reads the shrunk counterexample each
failing property prints (TPCHECK_COUNTEREXAMPLE lines). It passes when the
fault is found and every failing property shrank to sizes all at most N
(default 4). --mutant only names the fault in the messages.
Standard library only.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

CI_PARAMS = "seed=20261129 max_success=1000"


def fail(message):
    print("planted_fault_shrinks: " + message, file=sys.stderr)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary", type=Path)
    parser.add_argument("--mutant", type=int, default=9)
    parser.add_argument("--max-size", type=int, default=4)
    args = parser.parse_args()
    start = time.monotonic()

    if not (args.binary.is_file() and os.access(args.binary, os.X_OK)):
        fail(f"{args.binary}: no property binary with mutant {args.mutant} planted")
    done = subprocess.run([str(args.binary)], capture_output=True, text=True,
                          env=dict(os.environ, RC_PARAMS=CI_PARAMS), timeout=1800)
    failed = sorted(set(re.findall(r"^\[  FAILED  \] ([^\s,]+)", done.stdout, flags=re.MULTILINE)) - {"tests"})
    failed = [name for name in failed if "/" in name]
    examples = [json.loads(line.split(" ", 1)[1]) for line in done.stdout.splitlines()
                if line.startswith("TPCHECK_COUNTEREXAMPLE ")]
    if not examples:
        fail(f"mutant {args.mutant} made no property fail: the fault was not found")

    too_large = []
    for e in examples:
        sizes = [int(s) for s in e["sizes"]]
        shown = ", ".join(f"{k}={v}" for k, v in e["values"].items())
        largest = max((abs(s) for s in sizes), default=0)
        print(f"  {e['invariant']} [{e['int']}]: ({shown}), largest size {largest}")
        if largest > args.max_size:
            too_large.append(f"{e['invariant']} [{e['int']}] stopped at ({shown})")
    if len(examples) < len(failed):
        too_large.append(f"{len(failed)} properties failed but only {len(examples)} printed a counterexample")
    seconds = time.monotonic() - start
    if too_large:
        fail("counterexamples not shrunk to sizes <= %d:\n  %s" % (args.max_size, "\n  ".join(too_large)))
    print(f"planted_fault_shrinks: mutant {args.mutant}: {len(examples)} failing properties, every one shrunk to "
          f"sizes <= {args.max_size} ({seconds:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
