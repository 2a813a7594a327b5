#!/usr/bin/env python3
"""CTest driver for one C++ fixture of `tpcheck conform --profile trtllm` (standard library only).

usage: check_trtllm_cpp.py TPCHECK FIXTURE_DIR EXPECTED.json grid|fuzz

EXPECTED.json names the fixture (its files in FIXTURE_DIR, or a fault of
FIXTURE_DIR/faults.py applied to the correct files), the mode (the grid, or
--fuzz with a time budget), the exit status, and per function its status and
deviations: kind and smallest case, written by hand from SPEC §15.2 and the
fixture's fault. With `fuzz`, the run is --fuzz for EXPECTED's fuzz_seconds:
it must find one of the expected deviations (libFuzzer's path decides
which) within 60 s, with the same smallest case as the grid, and nothing on
a correct fixture. Independently of tpcheck's judge, the script then re-checks
each smallest case's own text (the ranks it connects to, the senders and the
picks) against the kind's definition, and for a grid run asserts from the
--record file that every kind of input was reached: replicated heads on
either side (a rank that does not send, a pick of fewer than all
connections), split heads, sizings refused as not powers of two, PP stage
splits and attention DP judged, and inquireSupport refusing a deployment.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from record_file import recorded_cases  # noqa: E402 - beside this file


def fixture_files(want, fixture_dir, into):
    sys.path.insert(0, fixture_dir)
    import faults  # noqa: E402 - the fixtures directory is only known at run time
    files = [os.path.join(fixture_dir, f) for f in want["files"]]
    fault = want.get("fault")
    if fault:
        faulty = faults.materialize(fixture_dir, fault, into)
        files = [faulty if os.path.basename(f) == os.path.basename(faulty) else f for f in files]
    return files


def ranks(text, label):
    m = re.search(label + r" \[([0-9, -]*)\]", text)
    return [int(x) for x in m.group(1).split(", ")] if m and m.group(1) else []


def confirms(kind, params, args, actual):
    """Whether the smallest case's own text shows the kind (SPEC §15.2), read without tpcheck's judge."""
    case = dict(zip(params, args))
    if kind == "rank_out_of_range":
        connects = ranks(actual, "connects")
        if "picks" in actual:
            return any(i < 0 or i >= len(connects) or connects[i] >= case["P"] for i in ranks(actual, "picks"))
        return any(p < 0 or p >= case["P"] for p in connects)
    if kind == "duality":
        return any(set(ranks(m.group(1), "waits for")) != set(ranks(m.group(1), "asked by"))
                   for m in re.finditer(r"(ctx \d+ waits for \[[^]]*\], asked by \[[^]]*\])", actual))
    if kind == "send_unpicked":
        return bool(set(ranks(actual, "sends to")) - set(ranks(actual, "picked by")))
    connects, senders = ranks(actual, "connects"), ranks(actual, "senders")
    picked = [connects[i] for i in ranks(actual, "picks")]
    if kind == "recv_from_nonsender":
        return bool(set(picked) - set(senders))
    if kind not in ("missing_heads", "duplicate_source", "wrong_source"):
        return kind in ("rejects_valid", "crashed", "timed_out")
    P, D, H, d = case["P"], case["D"], case["H"], case["d"]
    if case.get("ctx_adp") or case.get("gen_adp") or case.get("ctx_layers", 0) >= 10 or case.get("gen_layers", 0) >= 10:
        return True  # stages and attention-DP groups: read from the text alone only for one stage without DP

    def heads(t, T):  # SPEC §4
        first = t * H // T
        return set(range(first, first + max(1, H // T)))
    mine = heads(d, D)
    holders = [len([p for p in picked if h in heads(p, P)]) for h in mine]
    if kind == "missing_heads":
        return 0 in holders
    if kind == "duplicate_source":
        return any(n > 1 for n in holders)
    if kind == "wrong_source":
        return any(not (heads(p, P) & mine) for p in picked)
    return kind in ("rejects_valid", "crashed", "timed_out")


def reached(record_path):
    """Which kinds of input the grid reached, from the recorded outcomes."""
    seen = set()
    for section, args, outcome in recorded_cases(record_path):
        args = [int(a) for a in args]
        if outcome.startswith("TLLM_CHECK: "):
            seen.add("refused")
            continue
        if outcome.startswith("TPCHECK_UNSUPPORTED: "):
            continue
        # [P, D, H, ctx_layers, gen_layers, ctx_adp, gen_adp, c, g, rank]: PP stages, attention DP
        if args[3] >= 10 or args[4] >= 10:
            seen.add("pp_judged")
        if args[5] or args[6]:
            seen.add("adp_judged")
        if section == "CacheFormatter::needSendCache" and ranks(outcome, "asked by"):
            seen.add("replica_silent" if not ranks(outcome, "sends to") else "sends")
        elif section == "CacheFormatter::pickRecvConnections":
            n = len(ranks(outcome, "connects"))
            seen.add("picks_some" if len(ranks(outcome, "picks")) < n else "picks_all")
        elif section == "targetIRanks" and len(ranks(outcome, "connects")) > 1:
            seen.add("several_peers")
        elif section == "CacheFormatter::inquireSupport" and outcome == "false":
            seen.add("stages_refused")
    return seen


def main():
    tpcheck, fixture_dir, expected_path, mode = sys.argv[1:5]
    fuzzing = mode == "fuzz"
    with open(expected_path) as f:
        want = json.load(f)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        # A fault's file goes beside tpcheck's cache, the same path for the
        # grid and --fuzz tests, so that they share the compiled child.
        cache = os.environ.get("TPCHECK_CACHE_DIR")
        faulty_dir = os.path.join(cache, "fixtures", want.get("fault", "")) if cache else tmp
        files = fixture_files(want, fixture_dir, faulty_dir)
        record = os.path.join(tmp, "record.txt")
        bound = want.get("fuzz_max_tp", 16) if fuzzing else want["max_tp"]
        command = [tpcheck, "conform", "--profile", "trtllm", "--max-tp", str(bound), "--json"]
        if fuzzing:
            command += ["--fuzz", str(want["fuzz_seconds"])]
        else:
            command += ["--record", record]
        started = time.monotonic()
        run = subprocess.run(command + files, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
        took = time.monotonic() - started
        if run.returncode != want["exit"]:
            failures.append("exit status %d, expected %d; stderr: %s" % (run.returncode, want["exit"], run.stderr))
        try:
            report = json.loads(run.stdout)
        except ValueError:
            print("FAIL %s: no JSON report; stderr: %s" % (want["fixture"], run.stderr))
            return 1
        got = {f["name"]: f for f in report["functions"]}
        if fuzzing:
            failures += check_fuzz(want, report, took)
            want_functions = {}
        else:
            want_functions = want["functions"]
        for name, w in want_functions.items():
            f = got.get(name)
            if f is None or f["status"] != w["status"]:
                failures.append("%s: status %s, expected %s" % (name, f and f["status"], w["status"]))
                continue
            if w["status"] != "checked":
                continue
            if f["cases"] == 0 or f["not_compared"] >= f["cases"]:
                failures.append("%s: %d cases, %d not compared: nothing was judged" % (name, f["cases"], f["not_compared"]))
            kinds = [d["kind"] for d in f["deviations"]]
            if kinds != [d["kind"] for d in w["deviations"]]:
                failures.append("%s: deviation kinds %s, expected %s" % (name, kinds, [d["kind"] for d in w["deviations"]]))
            for d in w["deviations"]:
                match = [g for g in f["deviations"] if g["kind"] == d["kind"]]
                if not match:
                    continue
                smallest = match[0]["smallest"]
                for field, value in d["smallest"].items():
                    if smallest[field] != value:
                        failures.append("%s %s: smallest %s is %r, expected %r" % (name, d["kind"], field, smallest[field], value))
                if not confirms(d["kind"], f["params"], smallest["args"], smallest["actual"]):
                    failures.append("%s %s: the smallest case's text does not show it: %s" % (name, d["kind"], smallest["actual"]))
        if not fuzzing:
            missing = set(want.get("reached", [])) - reached(record)
            if missing:
                failures.append("inputs never reached: %s" % sorted(missing))
    if failures:
        print("FAIL %s:\n  %s" % (want["fixture"], "\n  ".join(failures)))
        return 1
    print("ok %s %s: %s (%.1f s)" % (want["fixture"], mode, {n: [(d["kind"], d["count"]) for d in f["deviations"]]
                                                            for n, f in got.items() if f["status"] == "checked"}, took))
    return 0


def check_fuzz(want, report, took):
    """--fuzz found one of the expected deviations in time, with the grid's smallest case (or nothing)."""
    failures = []
    allowed = {(name, d["kind"]): d["smallest"]["args"]
               for name, w in want["functions"].items() for d in w.get("deviations", [])}
    fuzz = report.get("fuzz") or {}
    found = [(f["name"], d) for f in report["functions"] for d in f.get("deviations", [])]
    if not allowed:
        if fuzz.get("first") or found:
            failures.append("--fuzz found %s on a correct fixture" % (fuzz.get("first") or found))
    else:
        if not fuzz.get("first") or not found:
            failures.append("--fuzz found nothing in %s s" % want["fuzz_seconds"])
        elif fuzz["seconds"] > want.get("find_within", 60):
            failures.append("--fuzz took %.1f s to find it, more than %s" % (fuzz["seconds"], want.get("find_within", 60)))
        for name, d in found:
            if (name, d["kind"]) not in allowed:
                failures.append("--fuzz found %s %s, not a deviation of this fault" % (name, d["kind"]))
            elif d["smallest"]["args"] != allowed[(name, d["kind"])]:
                failures.append("--fuzz: %s %s smallest %s, the grid's is %s" % (name, d["kind"], d["smallest"]["args"],
                                                                               allowed[(name, d["kind"])]))
    print("fuzz: %s after %.1f s (%s inputs); the whole run %.1f s" % (fuzz.get("first") or "nothing",
                                                                     fuzz.get("seconds", 0), fuzz.get("runs"), took))
    return failures


if __name__ == "__main__":
    sys.exit(main())
