#!/usr/bin/env python3
"""The speed limit for `tpcheck conform`: the same calls in a plain Python loop.

usage: bench_plain_loop.py RECORD FILE.py...

Reads every case from a `tpcheck conform --record RECORD` run, loads the
functions from the FILEs the way tpcheck's child does, and calls each function
on its recorded cases in one process (no pipe, no model, no comparison),
reporting calls per second. Standard library only.
"""
import importlib.util
import os
import sys
import time

FLAG_POSITION = {"validate_moriio_heterogeneous_tp_kv_heads": 3}


def main():
    record, files = sys.argv[1], sys.argv[2:]
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(
        "child", os.path.join(here, "..", "..", "conform", "child", "tpcheck_conform_child.py"))
    child = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(child)
    calls, name = {}, None
    with open(record, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                continue
            if line.startswith("@ "):
                name = line[2:].strip()
                calls[name] = []
                continue
            args = [int(a) for a in line.split("\t", 1)[0].split(",")]
            if name in FLAG_POSITION:
                args[FLAG_POSITION[name]] = bool(args[FLAG_POSITION[name]])
            calls[name].append(args)
    bound = child.bind_sources(files, list(calls))
    total, started = 0, time.perf_counter()
    for name, cases in calls.items():
        function = bound[name][0]
        for args in cases:
            try:
                repr(function(*args))
            except Exception as e:  # noqa: BLE001 - the outcome, as tpcheck's child renders it
                str(e)
        total += len(cases)
    seconds = time.perf_counter() - started
    print("plain loop: %d calls in %.2f s, %.0f calls/s" % (total, seconds, total / seconds))


if __name__ == "__main__":
    sys.exit(main())
