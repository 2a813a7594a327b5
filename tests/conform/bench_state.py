#!/usr/bin/env python3
"""How long the sglang profile's hybrid state functions take, measured
beside the attention functions in the same run (standard library only).

usage: bench_state.py TPCHECK [--python PY] [--repeat K] FILE.py...

Runs `TPCHECK conform --profile sglang --json` on SGLang's files with the
default grid (every function, every family), the C++ child's cache empty
(TPCHECK_CACHE_DIR a new directory: nothing is reused from an earlier run),
K times, and prints of the best run:

  - its seconds, and how they split: the attention functions, the hybrid
    state functions, and the rest (the child's start, loading the files);
    the bar is the whole run under 20 s (on two cores);
  - the transfers the byte judge judged per second of judging, for the
    attention functions' captures and the state functions' captures; the bar
    is the state captures' rate at least half the attention NIXL captures'.

Exit status 1 when a bar is missed, 2 when the run fails.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

SECONDS_BAR = 20.0
RATE_BAR = 0.5
ATTENTION_NIXL = "NixlKVManager.send_kvcache_slice"


def fail(message):
    print("bench_state.py: " + message, file=sys.stderr)
    sys.exit(2)


def is_state(name):
    return "mamba_state" in name


def run_once(args):
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, TPCHECK_CACHE_DIR=cache)
        done = subprocess.run([args.tpcheck, "conform", "--profile", "sglang", "--json", "--python", args.python] +
                              args.files, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if done.returncode not in (0, 1):
        fail("tpcheck conform failed (%d): %s" % (done.returncode, done.stderr.strip()))
    try:
        return json.loads(done.stdout)
    except ValueError:
        fail("tpcheck conform --json printed no JSON")


def judged_rate(functions):
    transfers = sum(f["tallies"].get("transfers", 0) for f in functions)
    seconds = sum(f["judge_seconds"] for f in functions if f["tallies"].get("transfers"))
    return transfers, (transfers / seconds if seconds > 0 else 0.0)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tpcheck")
    parser.add_argument("--python", default="python3")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    args.files = [os.path.abspath(f) for f in args.files]
    best = None
    for _ in range(max(1, args.repeat)):
        report = run_once(args)
        if best is None or report["seconds"] < best["seconds"]:
            best = report
    checked = [f for f in best["functions"] if f["status"] == "checked"]
    state = [f for f in checked if is_state(f["name"])]
    attention = [f for f in checked if not is_state(f["name"])]
    if not state:
        fail("no hybrid state function was checked: give utils.py and the managers' files")
    state_seconds = sum(f["seconds"] for f in state)
    attention_seconds = sum(f["seconds"] for f in attention)
    print("sglang, default grid, %d files, child cache empty: %.1f s (bar: under %.0f s): attention functions %.1f s, "
          "hybrid state functions %.1f s, the child's start and loading %.1f s; %d configurations" % (
              len(args.files), best["seconds"], SECONDS_BAR, attention_seconds, state_seconds,
              best["seconds"] - attention_seconds - state_seconds, best["cases"]))
    nixl = [f for f in attention if f["name"].startswith(ATTENTION_NIXL)]
    rows = [("attention, NIXL", nixl), ("attention, Mooncake", [f for f in attention if f["name"].startswith(
        "MooncakeKVManager.send_kvcache_slice")]), ("state, all", [f for f in state if f["tallies"].get("transfers")]),
            ("state, NIXL", [f for f in state if f["name"].startswith("NixlKVManager")]),
            ("state, Mooncake", [f for f in state if f["name"].startswith("MooncakeKVManager")])]
    rates = {}
    for label, functions in rows:
        transfers, rate = judged_rate(functions)
        rates[label] = rate
        print("  byte judge, %-20s %7d transfers, %9.0f transfers/s" % (label + ":", transfers, rate))
    reference = rates["attention, NIXL"]
    ratio = rates["state, all"] / reference if reference else 0.0
    print("  state captures judged at %.2f times the attention NIXL captures' rate (bar: at least %.1f)" % (
        ratio, RATE_BAR))
    return 0 if best["seconds"] < SECONDS_BAR and ratio >= RATE_BAR else 1


if __name__ == "__main__":
    sys.exit(main())
