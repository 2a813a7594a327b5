#!/usr/bin/env python3
"""CTest driver for one Python fixture of `tpcheck conform --profile trtllm` (standard library only).

usage: check_trtllm_python.py TPCHECK FIXTURE_DIR EXPECTED.json PYTHON

EXPECTED.json names the fixture (trtllm/python/peer.py and block.py of
FIXTURE_DIR, or a fault of FIXTURE_DIR/faults.py applied to one of them), the grid's bounds,
the exit status, and per function its status and deviations: kind and
smallest case (the deployment and the ranks; for the recurrent state's
mappers, (P, D, model) and the ranks), and where listed its notes, written
by hand from SPEC §15.1, §16.6 and the fixture's fault ("only_listed": only
those functions are run). tpcheck runs the fixture in PYTHON (one with
numpy: HeadMismatchMapper needs it; an expectation "without_numpy" runs it
without its site packages, and get_kv_map must skip exactly the deployments
whose mapper is HeadMismatchMapper, saying why, and judge the others). The
script asserts the report's kinds
and smallest cases are exactly those, and, from the report's tallies and the
--record file, that every kind of input was reached: copies judged byte by
byte, PP stage splits, attention DP on either side, MLA, pairs that are not
divisible, and the refusal probes of registration; for the recurrent state,
every family, P > D, P < D and P = D judged.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from record_file import recorded_cases  # noqa: E402 - beside this file

# Deployment arguments: P, D, H, MLA, ctx_layers, gen_layers, ctx_adp, gen_adp, c, g.
DEPLOYMENT_FUNCTIONS = ("PeerRegistrar._check_peer_compatible", "PeerRegistrar.get_peer_overlap",
                        "PeerRegistrar.get_kv_map")


def fixture_files(want, fixture_dir, into):
    files = [os.path.join(fixture_dir, "trtllm", "python", f) for f in ("peer.py", "block.py")]
    fault = want.get("fault")
    if not fault:
        return files
    sys.path.insert(0, fixture_dir)
    import faults  # noqa: E402 - the fixtures directory is only known at run time
    faulty = faults.materialize(fixture_dir, fault, into)
    return [faulty if os.path.basename(f) == os.path.basename(faulty) else f for f in files]


# The mappers of hybrid models' recurrent state (SPEC §16.6), their cases (P, D, model).
STATE_FUNCTIONS = ("ConvStateMismatchMapper._compute_section_plans", "MambaHeadMismatchMapper")
# SPEC §16.8's configurations by the index a case's "model" has; the first
# (Mamba2 with one group) replicates B and C on a side of more than one rank.
STATE_FAMILIES = ("mamba2", "mamba2", "mamba2", "gdn", "kda", "mamba1")


def state_reached(args, outcome):
    """What a mapper's case judged: its family and the order of P and D, where
    the mappers serve it (segments sharded on both sides, or P = D) and no
    call raised."""
    P, D, model = (int(a) for a in args)
    if "!" in outcome or (model == 0 and P != D and max(P, D) > 1):
        return set()
    return {"state_" + STATE_FAMILIES[model], "state_p_gt_d" if P > D else "state_p_lt_d" if P < D else "state_p_eq_d"}


def reached(record_path):
    """Which kinds of deployment the grid judged, from the recorded cases."""
    seen = set()
    for section, args, outcome in recorded_cases(record_path):
        if section in STATE_FUNCTIONS:
            seen |= state_reached(args, outcome)
            continue
        if section == "PeerRegistrar._find_overlap":
            L, R = int(args[0]), int(args[1])
            seen.add("divisible" if L % R == 0 or R % L == 0 else "not_divisible")
        elif section in DEPLOYMENT_FUNCTIONS:
            values = [int(a) if a.lstrip("-").isdigit() else (a == "True") for a in args]
            if values[3]:
                seen.add("mla")
            if values[4] >= 10 or values[5] >= 10:
                seen.add("pp")
            if values[6]:
                seen.add("ctx_adp")
            if values[7]:
                seen.add("gen_adp")
    return seen


def heads_per_rank(T, H, mla, adp):
    """kv_heads_per_rank of a side (SPEC §15.0)."""
    return 1 if mla else (H if adp else max(1, H // T))


def skipped_maps(record_path):
    """The get_kv_map deployments the child mapped: (skipped, judged) lists,
    and the skipped ones whose sides hold the same number of heads per rank
    (their mapper is never HeadMismatchMapper, so they must not be skipped),
    and the judged ones whose sides differ (they must be)."""
    skipped, judged, wrongly = [], [], []
    for section, args, outcome in recorded_cases(record_path):
        if section != "PeerRegistrar.get_kv_map" or " M " not in " " + outcome.replace("\\n", " "):
            continue
        P, D, H, mla, _, _, ctx_adp, gen_adp = [int(a) if a.lstrip("-").isdigit() else (a == "True") for a in args[:8]]
        differ = heads_per_rank(P, H, mla, ctx_adp) != heads_per_rank(D, H, mla, gen_adp)
        skip = " skip HeadMismatchMapper numpy" in outcome
        (skipped if skip else judged).append(args)
        if skip != differ:
            wrongly.append(",".join(args))
    return skipped, judged, wrongly


def main():
    tpcheck, fixture_dir, expected_path, python = sys.argv[1:5]
    with open(expected_path) as f:
        want = json.load(f)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        files = fixture_files(want, fixture_dir, tmp)
        if want.get("without_numpy"):
            # The same interpreter without its site packages, where Debian keeps numpy.
            wrapper = os.path.join(tmp, "python-without-numpy")
            with open(wrapper, "w") as f:
                f.write('#!/bin/sh\nexec "%s" -S "$@"\n' % python)
            os.chmod(wrapper, 0o755)
            python = wrapper
        record = os.path.join(tmp, "record.txt")
        command = [tpcheck, "conform", "--profile", "trtllm", "--json", "--python", python, "--record", record,
                   "--max-tp", str(want["max_tp"]), "--max-heads", str(want["max_heads"])] + files
        if want.get("only_listed"):  # a fault of functions the others do not call: just those
            for name in want["functions"]:
                command += ["--function", name]
        started = time.monotonic()
        run = subprocess.run(command, capture_output=True, text=True, timeout=600)
        wall = time.monotonic() - started
        if run.returncode != want["exit"]:
            failures.append("exit %d, expected %d; stderr: %s" % (run.returncode, want["exit"], run.stderr[-2000:]))
        try:
            report = json.loads(run.stdout)
        except ValueError:
            sys.exit("no JSON report: %s\n%s" % (run.stdout[-2000:], run.stderr[-2000:]))
        seen = reached(record) if os.path.exists(record) else set()
        maps = skipped_maps(record) if os.path.exists(record) else ([], [], [])
    functions = {f["name"]: f for f in report["functions"]}
    for name, w in want["functions"].items():
        f = functions.get(name)
        if f is None:
            failures.append("%s: not in the report" % name)
            continue
        if w.get("reason") and w["reason"] not in f.get("reason", ""):
            failures.append("%s: skipped because %r, expected a reason naming %r" % (name, f.get("reason"), w["reason"]))
        if f["status"] != w["status"]:
            failures.append("%s: status %s, expected %s (%s)" % (name, f["status"], w["status"],
                                                                 f.get("reason", "")))
            continue
        for group in ("deviations", "notes"):
            if group not in w:
                continue
            got = {d["kind"]: d["smallest"]["args"] for d in f.get(group, [])}
            expected = {d["kind"]: d["smallest"]["args"] for d in w[group]}
            if set(got) != set(expected):
                failures.append("%s: %s %s, expected %s" % (name, group, sorted(got), sorted(expected)))
            for kind in set(got) & set(expected):
                if got[kind] != expected[kind]:
                    failures.append("%s: %s smallest %s, expected %s" % (name, kind, got[kind], expected[kind]))
        if w.get("not_compared"):
            if not f.get("not_compared") or w["not_compared"] not in f.get("not_compared_reason", ""):
                failures.append("%s: %s not compared because %r, expected a reason naming %r" % (
                    name, f.get("not_compared"), f.get("not_compared_reason"), w["not_compared"]))
        if f["status"] == "checked" and name == "PeerRegistrar.get_kv_map":
            # Copies judged byte by byte, and replicas that stay silent by the selection rule.
            tallies = f.get("tallies", {})
            for tally in ("sends", "silent replicas", "copies", "decoded bytes"):
                if not tallies.get(tally):
                    failures.append("%s: no %s in the whole grid (%s)" % (name, tally, tallies))
    if want.get("without_numpy"):
        skipped, judged, wrongly = maps
        if not skipped or not judged:
            failures.append("get_kv_map without numpy: %d deployments skipped, %d judged: expected some of each"
                            % (len(skipped), len(judged)))
        if wrongly:
            failures.append("get_kv_map without numpy: skipped exactly when the sides' heads per rank differ, "
                            "but not in %s" % wrongly[:5])
        if skipped and functions["PeerRegistrar.get_kv_map"].get("not_compared", 0) < len(skipped):
            failures.append("get_kv_map: %d deployments skipped, but only %s not compared"
                            % (len(skipped), functions["PeerRegistrar.get_kv_map"].get("not_compared")))
    # Every kind of input reached (on the correct fixture the grid is the whole default one).
    if want.get("reaches"):
        missing = set(want["reaches"]) - seen
        if missing:
            failures.append("the grid never reached: %s" % ", ".join(sorted(missing)))
    print("%s: %.2f s wall" % (want["fixture"], wall))
    if failures:
        print("\n".join(failures))
        print(run.stdout[:6000])
        sys.exit(1)


if __name__ == "__main__":
    main()
