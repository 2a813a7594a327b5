#!/usr/bin/env python3
"""How long a profile's hybrid state functions take, measured beside the
attention functions of the same run (standard library only).

usage: bench_state.py TPCHECK --profile PROFILE [--python PY] [--repeat K] [--bar SECONDS] FILE.py...

Runs `TPCHECK conform --profile PROFILE --json` on one engine's files with
the default grid (every function, every family), the child's cache empty
(TPCHECK_CACHE_DIR a new directory: nothing is reused from an earlier run),
K times, and prints of the run with the least wall time:

  - its wall time, its CPU time (tpcheck and its child) and the load, and how
    the functions' own seconds split: the attention functions, the hybrid
    state functions (those whose cases are the state grid's, with a `model`
    parameter, and their helpers); the bar is the whole run under SECONDS
    (default 20) on two cores;
  - where both kinds of function judge transfers (the sglang profile's
    byte-level ones), the transfers the byte judge judged per second of
    judging, per class and for each kind; the bar is the state functions'
    rate at least half the attention functions'.
  - each function's seconds.

Exit status 1 when a bar is missed, 2 when the run fails or no state
function was checked.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

RATE_BAR = 0.5
# The state functions' helpers, which have no "model" parameter.
STATE_HELPERS = ("compute_physical_blocks_per_logical", "_physical_head_range", "_range_overlap")


def fail(message):
    print("bench_state.py: " + message, file=sys.stderr)
    sys.exit(2)


def is_state(function):
    return "model" in function["params"] or function["name"] in STATE_HELPERS


def run_once(args):
    command = [args.tpcheck, "conform", "--profile", args.profile, "--json"] + (
        ["--python", args.python] if args.python else []) + args.files
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, TPCHECK_CACHE_DIR=cache, XDG_CACHE_HOME=cache)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.monotonic()
        try:
            done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
        except subprocess.TimeoutExpired:
            fail("tpcheck conform took more than 600 s")
        wall = time.monotonic() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        fail("tpcheck conform failed (%d): %s" % (done.returncode, done.stderr.strip()))
    try:
        report = json.loads(done.stdout)
    except ValueError:
        fail("tpcheck conform --json printed no JSON")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, os.getloadavg()[0], report


def judged_rate(functions):
    """Transfers judged, and per second of judging, over the functions that judge transfers."""
    judging = [f for f in functions if f.get("tallies", {}).get("transfers")]
    transfers = sum(f["tallies"]["transfers"] for f in judging)
    seconds = sum(f["judge_seconds"] for f in judging)
    return transfers, (transfers / seconds if seconds > 0 else 0.0)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tpcheck")
    parser.add_argument("--profile", required=True)
    parser.add_argument("--python")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--bar", type=float, default=20.0, help="the whole run's limit in seconds (default 20)")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    args.files = [os.path.abspath(f) for f in args.files]
    best = None
    for _ in range(max(1, args.repeat)):
        run = run_once(args)
        if best is None or run[0] < best[0]:
            best = run
    wall, cpu, load, report = best
    checked = [f for f in report["functions"] if f["status"] == "checked"]
    state = [f for f in checked if is_state(f)]
    attention = [f for f in checked if not is_state(f)]
    if not state:
        fail("%s: no hybrid state function was checked in %s" % (args.profile, " ".join(args.files)))
    state_seconds = sum(f["seconds"] for f in state)
    attention_seconds = sum(f["seconds"] for f in attention)
    ok = wall < args.bar
    print("%s, default grid, %d files, child cache empty: %.1f s wall (bar: under %.0f s), %.1f s CPU, load %.1f; "
          "attention functions %.1f s (%d), hybrid state functions %.1f s (%d functions, %d cases); %d cases" % (
              args.profile, len(args.files), wall, args.bar, cpu, load, attention_seconds, len(attention),
              state_seconds, len(state), sum(f["cases"] for f in state), report["cases"]))
    attention_transfers, attention_rate = judged_rate(attention)
    state_transfers, state_rate = judged_rate(state)
    if attention_transfers and state_transfers:
        classes = sorted({f["name"].split(".")[0] for f in checked if "." in f["name"]})
        for kind, functions in (("attention", attention), ("state", state)):
            for cls in classes:
                transfers, rate = judged_rate([f for f in functions if f["name"].startswith(cls + ".")])
                if transfers:
                    print("  byte judge, %-9s %-20s %8d transfers, %9.0f transfers/s" % (kind, cls + ":", transfers,
                                                                                        rate))
        ratio = state_rate / attention_rate if attention_rate else 0.0
        print("  byte judge, state functions %.0f transfers/s beside the attention functions' %.0f: %.2f times "
              "(bar: at least %.1f)" % (state_rate, attention_rate, ratio, RATE_BAR))
        ok = ok and ratio >= RATE_BAR
    for f in checked:
        print("  %-66s %6.2f s  %s" % (f["name"], f["seconds"], "state" if is_state(f) else "attention"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
