#!/usr/bin/env python3
"""The speed limit for `tpcheck conform`: the same calls in a plain Python loop.

usage: bench_plain_loop.py TPCHECK --profile PROFILE [--python PY] [--max-tp N]
                           [--max-heads N] [--hybrid] [--function NAME]...
                           [--repeat K] FILE.py...

Runs `TPCHECK conform` on the files once with --record (not timed: it
gives the cases), then, one after the other, conform as a user runs it and a
plain loop in the same interpreter the child uses (--python): it
loads the functions the way the child does, and makes exactly the child's call
of every recorded case, rendering each value as the child does, in one
process, with nothing else (no ids, no reporting, no comparison). Prints both
rates in calls per second and their ratio; exit status 1 when conform runs at
less than half the plain loop's rate. With --repeat K, each side runs K times
and the best rate of each counts. --function limits both sides to those
functions. For a function whose configurations hold transfers (the sglang
profile's byte-level ones), it also prints the transfers tpcheck judged per
second of judging. Standard library only.

  bench_plain_loop.py --plain TPCHECK RECORD FILE.py...   (the plain-loop side alone)
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET_RATIO = 0.5


def plain(tpcheck, record_path, files):
    sys.path.insert(0, HERE)
    import child_module  # noqa: E402 - beside this file
    child = child_module.load_child(tpcheck)
    record = child_module.read_record(record_path)
    targets = child_module.bind_all(child, record.bindings, files)
    loops = []
    for name, cases in record.cases.items():
        spec = record.spec(name)
        flags = child_module.flag_positions(spec)
        args = [tuple(bool(a) if i in flags else a for i, a in enumerate(c)) for c, _ in cases]
        loops.append((child_module.make_plain_loop(child, targets[name]), args))
    total, started = 0, time.perf_counter()
    for loop, args in loops:
        loop(args)
        total += len(args)
    seconds = time.perf_counter() - started
    print(json.dumps({"calls": total, "seconds": seconds, "calls_per_second": total / seconds}))


def run_conform(args, record=None):
    """Cases, seconds and the report of one conform run; with `record`, it
    also writes every case there (the cases the plain loop makes)."""
    command = [args.tpcheck, "conform", "--profile", args.profile, "--max-tp", str(args.max_tp), "--json",
               "--python", args.python] + (["--record", record] if record else []) + \
              (["--hybrid"] if args.hybrid else []) + \
              (["--max-heads", str(args.max_heads)] if args.max_heads else []) + \
              [a for name in args.function for a in ("--function", name)] + args.files
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode not in (0, 1):
        sys.exit("tpcheck conform failed (%d): %s" % (done.returncode, done.stderr.strip()))
    report = json.loads(done.stdout)
    return report["cases"], report["seconds"], report


def run_plain(args, record):
    done = subprocess.run([args.python, "-I", os.path.abspath(__file__), "--plain", os.path.abspath(args.tpcheck), record] + args.files,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit("the plain loop failed: %s" % done.stderr.strip())
    result = json.loads(done.stdout)
    return result["calls"], result["seconds"]


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--plain":
        return plain(sys.argv[2], sys.argv[3], sys.argv[4:])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tpcheck")
    parser.add_argument("--profile", required=True)
    parser.add_argument("--python", default="python3")
    parser.add_argument("--max-tp", type=int, default=64)
    parser.add_argument("--max-heads", type=int, default=0)
    parser.add_argument("--hybrid", action="store_true")
    parser.add_argument("--function", action="append", default=[])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    args.files = [os.path.abspath(f) for f in args.files]
    best_conform = best_plain = 0.0
    judged = {}  # function -> (transfers, best transfers judged per second)
    with tempfile.TemporaryDirectory() as tmp:
        record = os.path.join(tmp, "record.txt")
        recorded, _, _ = run_conform(args, record)  # not timed: writing the record is not checking
        for _ in range(args.repeat):
            cases, seconds, report = run_conform(args)
            if cases != recorded:
                sys.exit("conform ran %d cases, %d when recording" % (cases, recorded))
            best_conform = max(best_conform, cases / seconds)
            for f in report["functions"]:
                transfers = f.get("tallies", {}).get("transfers")
                if transfers and f["judge_seconds"] > 0:
                    rate = transfers / f["judge_seconds"]
                    judged[f["name"]] = (transfers, max(rate, judged.get(f["name"], (0, 0))[1]))
            calls, plain_seconds = run_plain(args, record)
            best_plain = max(best_plain, calls / plain_seconds)
            if calls != cases:
                sys.exit("the plain loop made %d calls, conform %d" % (calls, cases))
    ratio = best_conform / best_plain
    print("%s --max-tp %d: %d calls; plain loop %.0f calls/s, conform %.0f calls/s: %.0f%% (target %.0f%%)" % (
        args.profile + (" --hybrid" if args.hybrid else ""), args.max_tp, cases, best_plain, best_conform,
        100 * ratio, 100 * TARGET_RATIO))
    for name, (transfers, rate) in judged.items():
        print("  %s: %d transfers, judged at %.0f transfers/s" % (name, transfers, rate))
    return 0 if ratio >= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
