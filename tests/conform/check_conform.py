#!/usr/bin/env python3
"""CTest driver for one `tpcheck conform` fixture (standard library only).

usage: check_conform.py TPCHECK FIXTURE_DIR EXPECTED.json

EXPECTED.json names the fixture (a file of FIXTURE_DIR, or a fault of
fixtures/faults.py applied to its correct file), the profile and its files,
the exit status, and per function its status and its deviations: kind and
smallest counterexample (args, expected, actual), written by hand from the
SPEC and the fixture's fault. The deviation COUNTS are not written down: this
script recomputes them independently of tpcheck's model, by calling the
fixture's functions and the correct fixture's (itself checked by its own
test) on every case tpcheck recorded, shaped as the child shapes them, and
asserts tpcheck's counts equal those. It also asserts that every recorded
outcome is what the fixture's function really returns. It runs the functions
in the interpreter it runs in, and passes that interpreter to tpcheck.

A hybrid state function's expectation may list what its grid must have
judged ("reaches": families, Mamba2's cases A and B, P > D, P < D, P = D),
read from the recorded cases that answered without a refusal.

A function judged by configuration (profile sglang) has no single expected
outcome per case to count against; there the bound is that a kind is found
in at most as many configurations as answer differently from the correct
fixture's, and that a function answering as the correct one has no
deviation. Its informational kinds ("notes") are asserted like deviations
when the expectation lists them.

An expectation may run only some functions ("only": --function) of some
state families ("families": --family), and name functions of the hybrid
state grid ("state_reached") that must be clean on every kind of
configuration: each family run, Mamba2's cases A and B, P > D and P < D,
replicated and sharded segments, and sizings that do not divide (SPEC
§16.8). Rows whose inputs make every version deviate
("deviations_of_the_inputs": a hybrid state row as SGLang's pool registers
it, for Mamba2) have their kinds and smallest cases asserted, not bounded by
the correct fixture's answers.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import child_module  # noqa: E402 - beside this file

MODELLED = ("ValueError", "NotImplementedError", "AssertionError")
RANKS_ONE_BY_ONE = 4096


def is_failure(text):
    return text.split(":")[0] in MODELLED


def kind_of(expected, actual, raised_class):
    """The deviation kinds; raised_class is what the call raised, if anything."""
    if raised_class is not None and raised_class not in MODELLED:
        return "crashed"
    if actual == expected:
        return None
    if raised_class is not None:
        return "wrong_error" if is_failure(expected) else "rejects_valid"
    return "accepts_invalid" if is_failure(expected) else "wrong_value"


class Oracle:
    """The correct fixture's outcome of a case, compared as SPEC §10, §12, §13 say."""

    def __init__(self, reference, name, params):
        self.reference, self.name, self.params = reference, name, params

    def arg(self, args, name):
        return args[self.params.index(name)]

    def compared(self, args):
        """False for a sizing NIXL refuses at handshake (SPEC §11), and for a
        head count a larger TP size does not divide (SPEC §16.6): not compared."""
        if self.name == "_physical_head_range":
            T, H = args[0], args[1]
            return T <= H or T % H == 0
        if self.name != "compute_tp_mapping":
            return True
        P, D, H, mla = (self.arg(args, n) for n in ("P", "D", "H", "MLA"))
        divisible = P % D == 0 or D % P == 0
        return not (divisible and not mla and P > D and P > H)

    def kind(self, args, actual, raised_class):
        if self.name == "get_moriio_expected_ack_count":
            # One count for all producer ranks: it must be each one's quorum.
            quorum = self.reference["_read_completion_quorum"]
            P, D = args
            first, _ = quorum((D, P, 0))
            ranks = [0] if is_failure(first) or P <= 0 else (
                range(P) if P <= RANKS_ONE_BY_ONE else [0, 1, 2, P // 2 - 1, P // 2, P - 2, P - 1])
            return next((k for k in (kind_of(quorum((D, P, p))[0], actual, raised_class) for p in ranks) if k), None)
        expected, _ = self.reference[self.name](args)
        if self.name == "_compute_sender_transfer_plan" and expected.startswith("(False,") and actual.startswith("(False,"):
            return None  # nothing to send: the rest is not compared
        if self.name == "_validate_asymmetric_region_lengths" and raised_class is None and actual != expected:
            return "rejects_valid"  # an error text returned
        return kind_of(expected, actual, raised_class)


# SPEC §16.8's state configurations, by the index a case's "model" has:
# family, and whether B and C are replicated where a side has more than one rank.
STATE_CONFIGS = [("mamba2", True), ("mamba2", False), ("mamba2", False), ("gdn", False), ("kda", False),
                 ("mamba1", False)]


def state_reached(record, name):
    """The kinds of hybrid state a function judged: its families, Mamba2's cases
    A and B, P > D, P < D and P = D, over the (P, D, model) cases whose calls
    answered without a refusal or a raise."""
    seen = set()
    for args, outcome in record.cases.get(name, []):
        if "!" in outcome or len(args) != 3:
            continue
        P, D, model = args
        family, replicated = STATE_CONFIGS[model]
        seen.add(family)
        if family == "mamba2":
            seen.add("case_b" if replicated and max(P, D) > 1 else "case_a")
        seen.add("p_gt_d" if P > D else "p_lt_d" if P < D else "p_eq_d")
    return seen


def fixture_files(want, fixture_dir, made):
    """(the fixture's files, the correct files): a fault (or an older version) replaces its correct file."""
    sys.path.insert(0, fixture_dir)
    import faults  # noqa: E402 - the fixtures directory is only known at run time
    name = want["fixture"]
    stem = os.path.splitext(name)[0]
    fault = stem if stem in faults.FAULTS or stem in getattr(faults, "VERSIONS", {}) else None
    files = want.get("files", [faults.correct_file(fault) if fault else name])
    correct = [os.path.join(fixture_dir, f) for f in files]
    if fault:
        changed = os.path.join(fixture_dir, faults.correct_file(fault))
        faulty = faults.materialize(fixture_dir, fault, made)
        return [faulty if f == changed else f for f in correct], [changed if f == faulty else f for f in correct]
    return correct, correct


def run_tpcheck(tpcheck, want, files, record):
    command = [tpcheck, "conform", "--profile", want.get("profile", "vllm-moriio"), "--max-tp", str(want["max_tp"]),
               "--json", "--record", record, "--python", sys.executable] + (["--hybrid"] if want.get("hybrid") else [])
    if "max_heads" in want:
        command += ["--max-heads", str(want["max_heads"])]
    for name in want.get("only", []):
        command += ["--function", name]
    for family in want.get("families", []):
        command += ["--family", family]
    return subprocess.run(command + files, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=240)


STATE_FAMILIES = ("mamba2", "gdn", "kda", "mamba1")


def state_kinds_reached(f, cases):
    """The kinds of SPEC §16.8's configurations among a state function's
    cases (P, D, model), the model named by the report's labels."""
    reached = set()
    for args, _ in cases:
        P, D, model = args[:3]
        label = f["labels"]["model"][str(model)]
        family, dims = label.split("(")[0], [int(v) for v in label.split("(")[1].rstrip(")").split(",")]
        reached.add(family)
        reached.add("P > D" if P > D else "P < D")
        if P % D and D % P:
            reached.add("not divisible")
            continue
        if max(P, D) > 1:
            reached.add("sharded segments")
        if family == "mamba2":
            groups = dims[2]
            if groups == 1 and max(P, D) > 1:
                reached.update(("case B", "replicated segments"))
            elif all(groups % T == 0 for T in (P, D)) and max(P, D) > 1:
                reached.add("case A")
    return reached


def check_state_reached(want, got, record):
    failures = []
    families = want.get("families") or list(STATE_FAMILIES)
    needed = set(families) | {"P > D", "P < D", "sharded segments", "not divisible"}
    if "mamba2" in families:
        needed |= {"case A", "case B", "replicated segments"}
    for name in want.get("state_reached", []):
        f = got.get(name)
        if f is None or f["status"] != "checked":
            failures.append("%s: must be checked to reach every kind of state configuration" % name)
            continue
        if f["deviations"]:
            failures.append("%s: must be clean, has %s" % (name, [d["kind"] for d in f["deviations"]]))
        missing = needed - state_kinds_reached(f, record.cases.get(name, []))
        if missing:
            failures.append("%s: reached no configuration of %s" % (name, sorted(missing)))
    return failures


def check(tpcheck, want, fixture_dir):
    failures = []
    child = child_module.load_child(tpcheck)
    with tempfile.TemporaryDirectory() as tmp:
        files, correct = fixture_files(want, fixture_dir, tmp)
        if want.get("reference"):
            correct = [os.path.join(fixture_dir, f) for f in want["reference"]]
        record_path = os.path.join(tmp, "record.txt")
        run = run_tpcheck(tpcheck, want, files, record_path)
        if run.returncode != want["exit"]:
            failures.append("exit status %d, expected %d; stderr: %s" % (run.returncode, want["exit"], run.stderr))
        report = json.loads(run.stdout)
        record = child_module.read_record(record_path)
        fixture_targets = child_module.bind_all(child, record.bindings, files)
        reference_targets = child_module.bind_all(child, record.bindings, correct)
    callers = {n: child_module.make_caller(child, t) for n, t in fixture_targets.items()}
    # The correct fixture is its own reference: its calls are made once.
    reference = callers if files == correct else {
        n: child_module.make_caller(child, t) for n, t in reference_targets.items()}
    got = {f["name"]: f for f in report["functions"]}
    for name, w in want["functions"].items():
        f = got.get(name)
        if f is None or f["status"] != w["status"]:
            failures.append("%s: status %s, expected %s" % (name, f and f["status"], w["status"]))
            continue
        if w["status"] != "checked":
            if "reason" in w and w["reason"] not in f["reason"]:
                failures.append("%s: skipped because %r, expected a reason with %r" % (name, f["reason"], w["reason"]))
            continue
        if "found" in w and f["found"] != w["found"]:
            failures.append("%s: bound %s, expected %s" % (name, f["found"], w["found"]))
        for group in ("deviations", "notes"):
            if group not in w:
                continue
            kinds = [d["kind"] for d in f.get(group, [])]
            if kinds != [d["kind"] for d in w[group]]:
                failures.append("%s: %s kinds %s, expected %s" % (name, group, kinds, [d["kind"] for d in w[group]]))
            for d in w[group]:
                match = [g for g in f.get(group, []) if g["kind"] == d["kind"]]
                for field in ("args", "expected", "actual"):
                    if match and match[0]["smallest"][field] != d["smallest"][field]:
                        failures.append("%s %s: smallest %s is %r, expected %r" % (
                            name, d["kind"], field, match[0]["smallest"][field], d["smallest"][field]))
        if "reaches" in w:
            missing = set(w["reaches"]) - state_reached(record, name)
            if missing:
                failures.append("%s: the grid never judged %s" % (name, ", ".join(sorted(missing))))
        if "tallies" in f:
            # A row whose inputs make every version deviate (SGLang's pool
            # registers no segment widths for Mamba2) deviates for the correct
            # fixture too: its kinds and smallest cases are asserted above,
            # its counts are not bounded by a difference from itself.
            inherent = name in want.get("deviations_of_the_inputs", [])
            failures += recount_configurations(name, f, record, callers[name], reference[name], inherent)
        else:
            failures += recount(name, f, record, callers[name], reference, Oracle(reference, name, f["params"]))
    failures += check_state_reached(want, got, record)
    if failures:
        print("FAIL %s:\n  %s" % (want["fixture"], "\n  ".join(failures)))
        return 1
    print("ok %s: %s" % (want["fixture"], {n: [(d["kind"], d["count"]) for d in got[n]["deviations"]]
                                           for n in want["functions"] if got[n]["status"] == "checked"}))
    return 0


def recorded_cases(name, f, record, failures):
    """The cases tpcheck recorded for a function: as many as it reports, and some."""
    cases = record.cases.get(name, [])
    if len(cases) != f["cases"]:
        failures.append("%s: %d cases recorded, %d reported" % (name, len(cases), f["cases"]))
    if not cases:
        failures.append("%s: no case was run" % name)
    return cases


def recount(name, f, record, call, reference, oracle):
    """Independent counts over exactly the cases tpcheck ran."""
    failures, counts, not_compared = [], {}, 0
    cases = recorded_cases(name, f, record, failures)
    for args, recorded in cases:
        actual, raised_class = call(args)
        if actual != recorded:
            failures.append("%s%s: recorded %r, the function returns %r" % (name, tuple(args), recorded, actual))
            break
        if not oracle.compared(args):
            not_compared += 1
            continue
        kind = oracle.kind(args, actual, raised_class)
        if kind:
            counts[kind] = counts.get(kind, 0) + 1
    reported = {d["kind"]: d["count"] for d in f["deviations"]}
    if counts != reported:
        failures.append("%s: tpcheck counts %s, recomputed %s" % (name, reported, counts))
    if not_compared != f["not_compared"]:
        failures.append("%s: %d cases not compared, recomputed %d" % (name, f["not_compared"], not_compared))
    if oracle.name == "compute_tp_mapping" and (not_compared == 0 or not_compared == len(cases)):
        failures.append("%s: the grid must reach both compared sizings and ones NIXL refuses" % name)
    return failures


def recount_configurations(name, f, record, call, reference, inherent=False):
    """A function judged by configuration: every recorded answer is the
    fixture's; each kind is found in at most as many configurations as
    answer otherwise than the correct fixture's; none when all answer alike
    (unless the deviations are the inputs', `inherent`)."""
    failures, differ = [], 0
    for args, recorded in recorded_cases(name, f, record, failures):
        actual, _ = call(args)
        if actual != recorded:
            failures.append("%s%s: recorded %r, the driver answers %r" % (name, tuple(args), recorded[:300], actual[:300]))
            break
        differ += reference is not call and reference(args)[0] != actual
    for d in [] if inherent else f["deviations"]:
        if d["count"] > differ:
            failures.append("%s: %s in %d configurations, but only %d answer otherwise than the correct fixture" % (
                name, d["kind"], d["count"], differ))
    return failures


def main():
    tpcheck, fixture_dir, expected_path = sys.argv[1:4]
    with open(expected_path, encoding="utf-8") as f:
        want = json.load(f)
    return check(tpcheck, want, fixture_dir)


if __name__ == "__main__":
    sys.exit(main())
