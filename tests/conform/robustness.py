#!/usr/bin/env python3
"""CTest driver: `tpcheck conform` under broken inputs and a broken child.

usage: robustness.py TPCHECK FIXTURE_DIR SCENARIO

Each scenario asserts a clear message, the exit status, and a bounded time.
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

PROFILE = ["conform", "--profile", "vllm-moriio"]


class Failed(Exception):
    pass


def run(tpcheck, args, timeout=90):
    started = time.monotonic()
    p = subprocess.run([tpcheck] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr, time.monotonic() - started


def expect(condition, what, *details):
    if not condition:
        raise Failed(what + "".join("\n    " + str(d)[:2000] for d in details))


def expect_error(result, status, pattern):
    code, out, err, _ = result
    expect(code == status, "exit %d, expected %d" % (code, status), out, err)
    expect(re.search(pattern, err), "stderr does not match %r" % pattern, err)
    expect(err.count("\n") == 1, "the error is not one line", err)


def syntax_error(tpcheck, fixtures):
    expect_error(run(tpcheck, PROFILE + [os.path.join(fixtures, "broken_syntax.py")]), 2,
                 r"^tpcheck conform: .*broken_syntax\.py:7: SyntaxError: ")


def missing_function(tpcheck, fixtures):
    # Asked for by name: its absence is an error. Not asked for: skipped.
    expect_error(run(tpcheck, PROFILE + ["--function", "_read_completion_quorum", "--max-tp", "2",
                                         os.path.join(fixtures, "hanging_port_offset.py"),
                                         os.path.join(fixtures, "slow_rank_map.py")]), 2,
                 r"_read_completion_quorum is not defined at top level in any given file")
    code, out, err, _ = run(tpcheck, PROFILE + ["--json", "--max-tp", "2", os.path.join(fixtures, "hanging_port_offset.py"),
                                                "--function", "get_moriio_remote_tp_rank",
                                                os.path.join(fixtures, "moriio_correct.py")])
    expect(code == 0, "a function found in the second file: exit %d" % code, err)
    expect([f["status"] for f in json.loads(out)["functions"]] == ["checked"], "only the asked-for function", out)


def no_function(tpcheck, fixtures):
    expect_error(run(tpcheck, PROFILE + [os.path.join(fixtures, "unrelated_module.py")]), 2,
                 r"none of the functions of profile vllm-moriio is defined at top level")


def infinite_loop(tpcheck, fixtures):
    code, out, err, seconds = run(tpcheck, PROFILE + ["--json", "--timeout", "1", "--max-tp", "4",
                                                      os.path.join(fixtures, "hanging_port_offset.py")], timeout=60)
    expect(code == 1, "exit %d, expected 1" % code, err)
    expect(seconds < 20, "took %.1f s with --timeout 1" % seconds)
    f = json.loads(out)["functions"][-1]
    expect(f["name"] == "get_port_offset" and [d["kind"] for d in f["deviations"]] == ["timed_out"], "kinds", f)
    d = f["deviations"][0]
    # The first hanging call in grid order (sizes from -1, then ranks from -1);
    # the function is abandoned after it, so it is also the only one.
    expect(d["count"] == 1 and d["smallest"]["args"] == [-1, -1, 0], "the hanging call is (dp -1, rank -1, size 0)", d)
    expect(d["smallest"]["actual"] == "<timed out: no answer within 1 s>", "actual", d)
    expect(f["not_run"] > 0 and f["not_run"] + 1 < f["cases"], "the rest is not run", f)


def killed_child(tpcheck, fixtures):
    started = time.monotonic()
    p = subprocess.Popen([tpcheck] + PROFILE + ["--max-tp", "8", os.path.join(fixtures, "slow_rank_map.py")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    children = "/proc/%d/task/%d/children" % (p.pid, p.pid)
    child = None
    while child is None and time.monotonic() - started < 20:
        time.sleep(0.5)  # let it start answering, then kill it mid-run
        with open(children) as f:
            pids = f.read().split()
        child = int(pids[0]) if pids else None
    expect(child is not None, "tpcheck started no child")
    os.kill(child, signal.SIGKILL)
    out, err = p.communicate(timeout=90)
    expect(p.returncode == 1, "exit %d, expected 1" % p.returncode, out, err)
    expect("killed by signal 9" in out, "the report says the child was killed", out)
    expect(time.monotonic() - started < 60, "bounded time")


def unexpected_exception(tpcheck, fixtures):
    code, out, err, _ = run(tpcheck, PROFILE + ["--json", "--max-tp", "8", os.path.join(fixtures, "dying_quorum.py")])
    expect(code == 1, "exit %d, expected 1" % code, err)
    report = json.loads(out)
    f = [f for f in report["functions"] if f["name"] == "_read_completion_quorum"][0]
    expect([d["kind"] for d in f["deviations"]] == ["crashed"], "only crashes", f)
    d = f["deviations"][0]
    expect(d["smallest"]["args"] == [1, 3, 0] and d["smallest"]["actual"] == "KeyError: 3", "smallest crash", d)
    deaths = [i for i in report["incidents"] if "exited with status 70" in i]
    # a death in a batch, then three when its calls are re-run one at a time
    expect(len(deaths) == 4 and f["not_run"] > 0, "three deaths of the child, then the function is abandoned", report)


def baseline_diff(tpcheck, fixtures):
    sys.path.insert(0, fixtures)
    import faults  # noqa: E402 - the fixtures directory is only known at run time
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as made:
        base = os.path.join(tmp, "base.txt")
        correct = os.path.join(fixtures, "moriio_correct.py")
        faulty = faults.materialize(fixtures, "moriio_quorum_first_ranks", made)
        code, _, err, _ = run(tpcheck, PROFILE + ["--max-tp", "8", "--record", base, correct])
        expect(code == 0 and os.listdir(tmp) == ["base.txt"], "record written, no temporary left", err, os.listdir(tmp))
        code, out, err, _ = run(tpcheck, PROFILE + ["--max-tp", "8", "--baseline", base, "--json", correct])
        expect(code == 0 and json.loads(out)["deviations"] == 0, "unchanged code: no change", out, err)
        code, out, err, _ = run(tpcheck, PROFILE + ["--max-tp", "8", "--baseline", base, "--json", faulty])
        full = json.loads(run(tpcheck, PROFILE + ["--max-tp", "8", "--json", faulty])[1])
        changes = {f["name"]: f["changes"] for f in json.loads(out)["functions"] if f["status"] == "checked"}
        wrong = [f["deviations"][0]["count"] for f in full["functions"] if f["name"] == "_read_completion_quorum"][0]
        expect(code == 1, "a change that deviates: exit 1", out, err)
        expect(changes == {"get_moriio_remote_tp_rank": 0, "validate_moriio_heterogeneous_tp_kv_heads": 0,
                           "_read_completion_quorum": wrong, "get_port_offset": 0},
               "exactly the faulty function's wrong cases changed", changes, wrong)
        expect_error(run(tpcheck, PROFILE + ["--max-tp", "6", "--baseline", base, correct]), 2,
                     r"recorded for a different grid")
        with open(base, "a") as f:
            f.write("garbage without a tab\n")
        expect_error(run(tpcheck, PROFILE + ["--max-tp", "8", "--baseline", base, correct]), 2, r"malformed line")


def adapter(tpcheck, fixtures):
    code, out, err, _ = run(tpcheck, ["conform", "--adapter", os.path.join(fixtures, "adapter_nixl_style.py"),
                                      "--max-tp", "8", "--json"])
    expect(code == 1, "exit %d, expected 1" % code, err)
    checked = {f["name"]: f for f in json.loads(out)["functions"] if f["status"] == "checked"}
    expect(sorted(checked) == ["port_offset", "remote_rank", "tp_ratio"], "the exposed operations", sorted(checked))
    expect(checked["remote_rank"]["deviations"] == [] and checked["port_offset"]["deviations"] == [], "exact", out)
    # SPEC §3's tp_ratio says nothing of sizes <= 0; the model refuses them by
    # name, the NIXL-style code asserts, divides by zero, or answers.
    got = [(d["kind"], d["smallest"]["args"], d["smallest"]["actual"]) for d in checked["tp_ratio"]["deviations"]]
    expect(got == [("wrong_error", [-2, -1], "AssertionError: Remote tensor parallel size -1 is not divisible by "
                                             "local tensor parallel size -2."),
                   ("accepts_invalid", [-1, 0], "0"),
                   ("crashed", [0, 0], "ZeroDivisionError: integer modulo by zero")], "tp_ratio deviations", got)
    expect_error(run(tpcheck, ["conform", "--adapter", os.path.join(fixtures, "unrelated_module.py")]), 2,
                 r"importing adapter .*unrelated_module\.py failed: ModuleNotFoundError: No module named 'zmq'")


def bad_usage(tpcheck, fixtures):
    correct = os.path.join(fixtures, "moriio_correct.py")
    expect_error(run(tpcheck, ["conform"]), 2, r"give --profile NAME")
    expect_error(run(tpcheck, ["conform", "--profile", "vllm-nixl", correct]), 2, r"unknown profile 'vllm-nixl'")
    expect_error(run(tpcheck, PROFILE + ["--max-tp", "many", correct]), 2, r"--max-tp takes a whole number")
    expect_error(run(tpcheck, PROFILE + [os.path.join(fixtures, "no_such_file.py")]), 2, r"cannot read .*no_such_file")
    expect_error(run(tpcheck, PROFILE + ["--python", "/nonexistent/python3", correct]), 2, r"cannot run '/nonexistent")
    expect_error(run(tpcheck, ["conform", "--adapter", os.path.join(fixtures, "broken_syntax.py")]), 2, r"SyntaxError")
    expect_error(run(tpcheck, PROFILE + ["--corpus", os.path.join(fixtures, "broken_syntax.py"), correct]), 2,
                 r"broken_syntax\.py:3: unknown operation 'import'")


def main():
    tpcheck, fixtures, scenario = sys.argv[1:4]
    try:
        globals()[scenario](os.path.abspath(tpcheck), os.path.abspath(fixtures))
    except Failed as e:
        print("FAIL %s: %s" % (scenario, e))
        return 1
    print("ok " + scenario)
    return 0


if __name__ == "__main__":
    sys.exit(main())
