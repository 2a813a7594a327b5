#!/usr/bin/env python3
"""How long a full default-grid run of one engine's files takes with the
hybrid state functions, beside the same run's attention-only part (standard
library only).

usage: bench_state_run.py TPCHECK PROFILE [--python PYTHON] [--bar SECONDS] FILE...

Runs `tpcheck conform --profile PROFILE --json FILE...` once on the default
grid, with a cold child cache (an empty TPCHECK_CACHE_DIR), and splits the
run's time by its functions' own seconds (the JSON report's "seconds"): the
hybrid state functions (those whose cases are (P, D, model) or (T, model) of
the state grid, and their helpers) and the others, the attention part. It
prints both beside the whole run's wall time, and exits 1 when the whole run
takes longer than the bar (default 20 s).
"""
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

# The state functions' helpers, which have no "model" parameter.
STATE_HELPERS = ("compute_physical_blocks_per_logical", "_physical_head_range", "_range_overlap")


def is_state(function):
    return "model" in function["params"] or function["name"] in STATE_HELPERS


def main():
    args = sys.argv[1:]
    if len(args) < 3:
        sys.exit(__doc__)
    tpcheck, profile = args[0], args[1]
    python, bar, files = None, 20.0, []
    rest = iter(args[2:])
    for a in rest:
        if a == "--python":
            python = next(rest)
        elif a == "--bar":
            bar = float(next(rest))
        else:
            files.append(a)
    command = [tpcheck, "conform", "--profile", profile, "--json"] + (["--python", python] if python else []) + files
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, TPCHECK_CACHE_DIR=cache, XDG_CACHE_HOME=cache)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.monotonic()
        run = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
        wall = time.monotonic() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if run.returncode not in (0, 1):
        sys.exit("tpcheck exited %d: %s" % (run.returncode, run.stderr.strip()))
    report = json.loads(run.stdout)
    checked = [f for f in report["functions"] if f["status"] == "checked"]
    state = [f for f in checked if is_state(f)]
    if not state:
        sys.exit("%s: no hybrid state function was checked in %s" % (profile, " ".join(files)))
    state_seconds = sum(f["seconds"] for f in state)
    other_seconds = sum(f["seconds"] for f in checked if not is_state(f))
    print("%s: %.1f s wall, %.1f s CPU (tpcheck and its child), load %.1f (%d functions): hybrid state %.1f s "
          "(%d functions, %d cases), attention %.1f s (%d functions); bar %.0f s: %s" % (
              profile, wall, cpu, os.getloadavg()[0], len(checked), state_seconds, len(state),
              sum(f["cases"] for f in state), other_seconds, len(checked) - len(state), bar,
              "ok" if wall < bar else "ABOVE"))
    for f in checked:
        print("  %-50s %6.2f s  %s" % (f["name"], f["seconds"], "state" if is_state(f) else "attention"))
    return 0 if wall < bar else 1


if __name__ == "__main__":
    sys.exit(main())
