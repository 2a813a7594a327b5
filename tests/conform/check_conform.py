#!/usr/bin/env python3
"""CTest driver for one `tpcheck conform` fixture (standard library only).

usage: check_conform.py TPCHECK FIXTURE_DIR EXPECTED.json

EXPECTED.json names the fixture, the exit status, and per function its status
and its deviations: kind and smallest counterexample (args, expected, actual),
written by hand from the SPEC and the fixture's fault. The deviation COUNTS are
not written down: this script recomputes them independently, by calling the
fixture's functions and the reference fixture's (moriio_correct.py, itself
checked against the model by its own test) on every case tpcheck recorded, and
asserts tpcheck's counts equal those. It also asserts every recorded outcome
is what the fixture's function really returns.
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

MODELLED = ("ValueError", "NotImplementedError", "AssertionError")
FLAG_POSITION = {"validate_moriio_heterogeneous_tp_kv_heads": 3}  # is_mla
RANKS_ONE_BY_ONE = 4096


def load_child_module(here):
    path = os.path.join(here, "..", "..", "conform", "child", "tpcheck_conform_child.py")
    spec = importlib.util.spec_from_file_location("tpcheck_conform_child", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def outcome(function, args, with_class=False):
    try:
        text, cls = repr(function(*args)), None
    except Exception as e:  # noqa: BLE001 - every exception is an outcome here
        text, cls = "%s: %s" % (type(e).__name__, e), type(e).__name__
    return (text, cls) if with_class else text


def is_failure(text):
    return text.split(":")[0] in MODELLED


def kind_of(expected, actual, raised_class):
    """The issue's deviation kinds; raised_class is what the call raised, if anything."""
    if raised_class is not None and raised_class not in MODELLED:
        return "crashed"
    if actual == expected:
        return None
    if raised_class is not None:
        return "wrong_error" if is_failure(expected) else "rejects_valid"
    return "accepts_invalid" if is_failure(expected) else "wrong_value"


def reference_outcome(name, args, reference):
    if name != "get_moriio_expected_ack_count":
        return outcome(reference[name], args)
    # One count for all producer ranks: must be the per-rank quorum of each.
    quorum = reference["_read_completion_quorum"]
    P, D = args
    first = outcome(quorum, (D, P, 0))
    if is_failure(first) or P <= 0:
        return [first]
    ranks = range(P) if P <= RANKS_ONE_BY_ONE else [0, 1, 2, P // 2 - 1, P // 2, P - 2, P - 1]
    return [outcome(quorum, (D, P, p)) for p in ranks]


def read_record(path):
    cases, name = {}, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                continue
            if line.startswith("@ "):
                name = line[2:]
                cases[name] = []
                continue
            args, actual = line.split("\t", 1)
            actual = actual.replace("\\n", "\n").replace("\\t", "\t").replace("\\\\", "\\")
            cases[name].append(([int(a) for a in args.split(",")], actual))
    return cases


def main():
    tpcheck, fixture_dir, expected_path = sys.argv[1:4]
    here = os.path.dirname(os.path.abspath(__file__))
    with open(expected_path, encoding="utf-8") as f:
        want = json.load(f)
    child = load_child_module(here)
    with tempfile.TemporaryDirectory() as made:
        return check(tpcheck, want, child, fixture_path(fixture_dir, want["fixture"], made), fixture_dir)


def fixture_path(fixture_dir, file_name, out_dir):
    """A committed fixture, or a faulty one made from moriio_correct.py (fixtures/faults.py)."""
    path = os.path.join(fixture_dir, file_name)
    if os.path.exists(path):
        return path
    sys.path.insert(0, fixture_dir)
    import faults  # noqa: E402 - the fixtures directory is only known at run time
    return faults.materialize(fixture_dir, os.path.splitext(file_name)[0], out_dir)


def check(tpcheck, want, child, fixture, fixture_dir):
    reference_ns, _ = child.load_source_file(os.path.join(fixture_dir, "moriio_correct.py"))
    fixture_ns, _ = child.load_source_file(fixture)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        record = os.path.join(tmp, "record.txt")
        run = subprocess.run([tpcheck, "conform", "--profile", "vllm-moriio", "--max-tp", str(want["max_tp"]),
                              "--json", "--record", record, fixture],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=240)
        if run.returncode != want["exit"]:
            failures.append("exit status %d, expected %d; stderr: %s" % (run.returncode, want["exit"], run.stderr))
        report = json.loads(run.stdout)
        recorded = read_record(record)
    got = {f["name"]: f for f in report["functions"]}
    for name, w in want["functions"].items():
        f = got.get(name)
        if f is None or f["status"] != w["status"]:
            failures.append("%s: status %s, expected %s" % (name, f and f["status"], w["status"]))
            continue
        if w["status"] != "checked":
            continue
        kinds = [d["kind"] for d in f["deviations"]]
        if kinds != [d["kind"] for d in w["deviations"]]:
            failures.append("%s: deviation kinds %s, expected %s" % (name, kinds, [d["kind"] for d in w["deviations"]]))
        for d in w["deviations"]:
            match = [g for g in f["deviations"] if g["kind"] == d["kind"]]
            for field in ("args", "expected", "actual"):
                if match and match[0]["smallest"][field] != d["smallest"][field]:
                    failures.append("%s %s: smallest %s is %r, expected %r" % (
                        name, d["kind"], field, match[0]["smallest"][field], d["smallest"][field]))
        # Independent counts over exactly the cases tpcheck ran.
        counts, cases = {}, recorded.get(name, [])
        if len(cases) != f["cases"]:
            failures.append("%s: %d cases recorded, %d reported" % (name, len(cases), f["cases"]))
        for args, actual in cases:
            call_args = list(args)
            if name in FLAG_POSITION:
                call_args[FLAG_POSITION[name]] = bool(call_args[FLAG_POSITION[name]])
            direct, raised_class = outcome(fixture_ns[name], call_args, with_class=True)
            if direct != actual:
                failures.append("%s%s: recorded %r, the function returns %r" % (name, tuple(call_args), actual, direct))
                break
            expected = reference_outcome(name, call_args, reference_ns)
            if isinstance(expected, list):
                kind = next((k for k in (kind_of(e, actual, raised_class) for e in expected) if k), None)
            else:
                kind = kind_of(expected, actual, raised_class)
            if kind:
                counts[kind] = counts.get(kind, 0) + 1
        reported = {d["kind"]: d["count"] for d in f["deviations"]}
        if counts != reported:
            failures.append("%s: tpcheck counts %s, recomputed %s" % (name, reported, counts))
    if failures:
        print("FAIL %s:\n  %s" % (want["fixture"], "\n  ".join(failures)))
        return 1
    print("ok %s: %s" % (want["fixture"], {n: [(d["kind"], d["count"]) for d in got[n]["deviations"]]
                                           for n in want["functions"] if got[n]["status"] == "checked"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
