#!/usr/bin/env python3
"""CTest driver: `tpcheck conform` under broken inputs, a broken child, and
code under test that tries what it should not.

usage: robustness.py TPCHECK FIXTURE_DIR SCENARIO [NUMPY_PYTHON]

Each scenario asserts a clear message, the exit status, and a bounded time.
The hardening scenarios (isolated_interpreter, non_literal_default,
protocol_out_of_reach, call_budget, memory_limits) fail against a tpcheck
without the protection they test.
"""
import json
import os
import re
import signal
import subprocess
import stat
import sys
import tempfile
import textwrap
import time

PROFILE = ["conform", "--profile", "vllm-moriio"]
NIXL = ["vllm/kv_connector/utils.py", "vllm/kv_connector/nixl/tp_mapping.py"]


class Failed(Exception):
    pass


def run(tpcheck, args, timeout=90, cwd=None, env=None):
    started = time.monotonic()
    try:
        p = subprocess.run([tpcheck] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout,
                           cwd=cwd, env=env)
    except subprocess.TimeoutExpired:
        raise Failed("tpcheck %s ran for more than %d s" % (" ".join(args), timeout))
    return p.returncode, p.stdout, p.stderr, time.monotonic() - started


# SPEC §8's port offset, as the fixtures that need a correct one end their function.
PORT_OFFSET_CHECKS = """
                if tp_size <= 0:
                    raise ValueError("tp_size must be positive")
                if not 0 <= tp_rank < tp_size:
                    raise ValueError(f"tp_rank {tp_rank} must be in [0, {tp_size})")
                if dp_rank < 0:
                    raise ValueError(f"dp_rank {dp_rank} must be non-negative")
                return dp_rank * tp_size + tp_rank
"""[1:]


def write(directory, name, text):
    path = os.path.join(directory, name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(textwrap.dedent(text))
    return path


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
                 r"_read_completion_quorum cannot be checked: not defined at top level in .*"
                 r"\(looked for _read_completion_quorum\)")
    code, out, err, _ = run(tpcheck, PROFILE + ["--json", "--max-tp", "2", os.path.join(fixtures, "hanging_port_offset.py"),
                                                "--function", "get_moriio_remote_tp_rank",
                                                os.path.join(fixtures, "moriio_correct.py")])
    expect(code == 0, "a function found in the second file: exit %d" % code, err)
    expect([f["status"] for f in json.loads(out)["functions"]] == ["checked"], "only the asked-for function", out)


def no_function(tpcheck, fixtures):
    expect_error(run(tpcheck, PROFILE + [os.path.join(fixtures, "unrelated_module.py")]), 2,
                 r"none of the functions of profile vllm-moriio can be checked in the given files")


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


# Linux's nanosleep and clock_nanosleep, by /proc/PID/syscall's number (x86-64, then arm64).
SLEEP_SYSCALLS = {"35", "230", "101", "115"}


def sleeping_in_fixture(pid):
    """Whether the child is in the fixture's time.sleep: it has loaded the file
    under test and is answering calls. /proc/PID/wchan names the kernel function
    it waits in; /proc/PID/syscall gives the call where wchan is hidden."""
    try:
        with open("/proc/%d/wchan" % pid) as f:
            if "nanosleep" in f.read():
                return True
        with open("/proc/%d/syscall" % pid) as f:
            return f.read().split(" ", 1)[0] in SLEEP_SYSCALLS
    except OSError:  # it ended, or the kernel hides both
        return False


def killed_child(tpcheck, fixtures):
    started = time.monotonic()
    p = subprocess.Popen([tpcheck] + PROFILE + ["--max-tp", "8", os.path.join(fixtures, "slow_rank_map.py")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    children = "/proc/%d/task/%d/children" % (p.pid, p.pid)
    child = None
    # Kill it mid-run, once it is answering: a fixed delay killed it while it
    # was still starting on a loaded machine.
    while child is None and time.monotonic() - started < 60:
        time.sleep(0.01)
        with open(children) as f:
            pids = f.read().split()
        if pids and sleeping_in_fixture(int(pids[0])):
            child = int(pids[0])
    expect(child is not None, "tpcheck's child was never seen answering a call within 60 s")
    os.kill(child, signal.SIGKILL)
    out, err = p.communicate(timeout=90)
    expect(p.returncode == 1, "exit %d, expected 1" % p.returncode, out, err)
    expect("killed by signal 9" in out, "the report says the child was killed", out)
    expect(time.monotonic() - started < 120, "bounded time")


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
    expect_error(run(tpcheck, ["conform", "--profile", "vllm-nope", correct]), 2, r"unknown profile 'vllm-nope'")
    expect_error(run(tpcheck, PROFILE + ["--hybrid", correct]), 2, r"--hybrid is an option of --profile vllm-mooncake")
    expect_error(run(tpcheck, PROFILE + ["--memory", "12", correct]), 2, r"--memory takes a whole number from 64")
    expect_error(run(tpcheck, PROFILE + ["--max-tp", "many", correct]), 2, r"--max-tp takes a whole number")
    expect_error(run(tpcheck, PROFILE + [os.path.join(fixtures, "no_such_file.py")]), 2, r"cannot read .*no_such_file")
    expect_error(run(tpcheck, PROFILE + ["--python", "/nonexistent/python3", correct]), 2, r"cannot run '/nonexistent")
    expect_error(run(tpcheck, ["conform", "--adapter", os.path.join(fixtures, "broken_syntax.py")]), 2, r"SyntaxError")
    expect_error(run(tpcheck, PROFILE + ["--corpus", os.path.join(fixtures, "broken_syntax.py"), correct]), 2,
                 r"broken_syntax\.py:3: unknown operation 'import'")


def skipped_with_reason(tpcheck, fixtures):
    # The profile's functions found in no file, or found but not callable as
    # the profile needs, are skipped with what was looked for.
    with tempfile.TemporaryDirectory() as tmp:
        renamed = write(tmp, "utils.py", """
            class TransferTopology:
                def tp_ratio(self, remote_tp_size):
                    return self.tp_size // remote_tp_size
                def handshake_target_ranks(self, remote_size, remote_dcp_size=1):
                    return [self.tp_rank]
            """)
        code, out, err, _ = run(tpcheck, ["conform", "--profile", "vllm-nixl", "--json", "--max-tp", "2", renamed])
    expect(code == 1, "exit %d, expected 1 (tp_ratio deviates)" % code, err)
    reasons = {f["name"]: f.get("reason") for f in json.loads(out)["functions"]}
    expect(reasons["TransferTopology.tp_ratio"] is None, "tp_ratio is checked", reasons)
    expect("has no method dcp_consumer_count" in reasons["TransferTopology.dcp_consumer_count"], "method", reasons)
    expect("it has no parameter 'remote_tp_size'" in reasons["TransferTopology.handshake_target_ranks"],
           "a renamed parameter", reasons)
    expect("looked for compute_tp_mapping" in reasons["compute_tp_mapping"], "function", reasons)


def numpy_missing(tpcheck, fixtures, numpy_python):
    # An interpreter without numpy (site-packages off): the function that needs
    # it is skipped, saying why; the topology's methods are still checked.
    with tempfile.TemporaryDirectory() as tmp:
        python = write(tmp, "python-without-site", "#!/bin/sh\nexec %s -S \"$@\"\n" % numpy_python)
        os.chmod(python, os.stat(python).st_mode | stat.S_IEXEC)
        code, out, err, _ = run(tpcheck, ["conform", "--profile", "vllm-nixl", "--json", "--max-tp", "4", "--python",
                                          python] + [os.path.join(fixtures, f) for f in NIXL])
    expect(code == 0, "exit %d, expected 0" % code, err)
    functions = {f["name"]: f for f in json.loads(out)["functions"]}
    reason = functions["compute_tp_mapping"].get("reason", "")
    expect(re.search(r"needs import numpy as np \(.*tp_mapping\.py:\d+\), which .* cannot import: "
                     r"No module named 'numpy'", reason), "the reason names numpy and the import", reason)
    expect(functions["TransferTopology.tp_ratio"]["status"] == "checked", "tp_ratio checked", functions)


def odd_outcomes(tpcheck, fixtures):
    # Outcomes the protocol must carry to their cases intact: a message per
    # case (thousands of distinct ones, past the point where the child stops
    # keying them), non-ASCII and surrogate text, a class name with a space
    # and a newline, a message past the length compared, a str() that raises,
    # and a repr() that raises.
    with tempfile.TemporaryDirectory() as tmp:
        odd = write(tmp, "odd.py", """
            def get_port_offset(dp_rank, tp_rank, tp_size=1):
                class Unprintable(Exception):
                    def __str__(self):
                        raise RuntimeError("no text")

                class NoRepr:
                    def __repr__(self):
                        raise KeyError("repr")

                if tp_size == 3:
                    raise type("Weird Error\\n", (Exception,), {})("w")
                if tp_size == 5:
                    raise ValueError("caf\u00e9 \u2713 \\udcff")
                if tp_size == 6:
                    raise ValueError("x" * 2000000)
                if tp_size == 7:
                    raise Unprintable()
                if tp_size == 9:
                    return NoRepr()
                raise ValueError(f"unique {dp_rank} {tp_rank} {tp_size}")
            """)
        record = os.path.join(tmp, "record.txt")
        code, out, err, _ = run(tpcheck, PROFILE + ["--json", "--max-tp", "32", "--function", "get_port_offset",
                                                    "--record", record, odd])
        expect(code == 1, "exit %d, expected 1" % code, err)
        with open(record, "rb") as f:
            lines = [line.rstrip(b"\n").split(b"\t", 1) for line in f if not line.startswith((b"#", b"@"))]
    special = {3: b"Weird_Error_: w", 5: "ValueError: caf\u00e9 \u2713 ".encode() + b"\xed\xb3\xbf",
               6: b"tpcheck.OutcomeTooLong: the outcome has 2000000 bytes; at most 1048576 are compared",
               7: b"Unprintable: <str() of the exception failed>", 9: b"tpcheck.ReprFailed: KeyError: 'repr'"}
    unique = 0
    for args, outcome in lines:
        dp, tp, size = [int(a) for a in args.split(b",")]
        wanted = special.get(size, b"ValueError: unique %d %d %d" % (dp, tp, size))
        expect(outcome == wanted, "case (%d, %d, %d) has its own outcome" % (dp, tp, size), outcome[:200], wanted)
        unique += size not in special
    expect(unique > 2 * 4096, "enough distinct messages to be sent inline", unique)
    expect(all(size in [int(a.split(b",")[2]) for a, _ in lines] for size in special), "every odd outcome reached")
    expect(json.loads(out)["cases"] == len(lines), "the record has every case", len(lines))


def isolated_interpreter(tpcheck, fixtures):
    # Modules in the working directory or on PYTHONPATH named like the ones
    # the child imports must not replace them: the child runs python3 -I.
    with tempfile.TemporaryDirectory() as cwd, tempfile.TemporaryDirectory() as path:
        for directory in (cwd, path):
            for module in ("ast", "json", "signal"):
                write(directory, module + ".py", "raise SystemExit('the shadowing %s.py was imported')\n" % module)
        env = dict(os.environ, PYTHONPATH=path)
        code, out, err, _ = run(tpcheck, PROFILE + ["--max-tp", "2", os.path.join(fixtures, "moriio_correct.py")],
                                cwd=cwd, env=env)
    expect(code == 0 and "0 deviations in 0 functions" in out, "exit %d, expected a clean run" % code, out, err)


def non_literal_default(tpcheck, fixtures):
    # A default that is not a literal is evaluated when its function is
    # defined: it must not be, and the function is reported as skipped.
    with tempfile.TemporaryDirectory() as tmp:
        marker = os.path.join(tmp, "MARKER")
        module = write(tmp, "moriio_defaults.py", """
            LIMIT = 4
            def get_port_offset(dp_rank, tp_rank, tp_size=__import__("os").system("touch %s") or 1):
                return dp_rank * tp_size + tp_rank
            def get_moriio_remote_tp_rank(local_tp_rank, local_tp_size, remote_tp_size=LIMIT):
                if local_tp_size <= 0 or remote_tp_size <= 0:
                    raise ValueError("TP sizes must be positive")
                return local_tp_rank
            class TransferTopology:
                def tp_ratio(self, remote_tp_size=open("%s", "w")):
                    return 1
                def handshake_target_ranks(self, remote_tp_size):
                    return [self.tp_rank]
            """ % (marker, marker))
        code, out, err, _ = run(tpcheck, PROFILE + ["--json", "--max-tp", "2", module])
        expect(not os.path.exists(marker), "a default was evaluated: the marker file exists")
        functions = {f["name"]: f for f in json.loads(out)["functions"]}
        reason = functions["get_port_offset"].get("reason", "")
        expect("the default of its parameter 'tp_size' is not a literal" in reason and "not evaluated" in reason,
               "the reason", reason)
        expect(functions["get_moriio_remote_tp_rank"]["status"] == "checked", "a literal constant default is fine",
               functions)
        code, out, err, _ = run(tpcheck, ["conform", "--profile", "vllm-nixl", "--json", "--max-tp", "2", module])
        expect(not os.path.exists(marker), "a method's default was evaluated: the marker file exists")
        reason = {f["name"]: f.get("reason", "") for f in json.loads(out)["functions"]}["TransferTopology.tp_ratio"]
        expect("'remote_tp_size' is not a literal" in reason, "the method's reason", reason)


def protocol_out_of_reach(tpcheck, fixtures):
    # Code under test that reads standard input and writes reply-shaped bytes
    # to every low descriptor: stdin is /dev/null and the protocol is elsewhere.
    with tempfile.TemporaryDirectory() as tmp:
        module = write(tmp, "moriio_noisy.py", """
            import os
            import sys

            def get_port_offset(dp_rank, tp_rank, tp_size=1):
                if sys.stdin.read():
                    raise RuntimeError("standard input had data")
                for fd in range(1, 10):
                    try:
                        os.write(fd, b"OUTCOMES 1\\n\\x00\\x00\\x00\\x00DONE 1\\n0 V 0\\n")
                    except OSError:
                        pass
""" + PORT_OFFSET_CHECKS)
        code, out, err, seconds = run(tpcheck, PROFILE + ["--json", "--timeout", "2", "--max-tp", "2", module], timeout=60)
    report = json.loads(out) if out else {}
    expect(code == 0 and report.get("deviations") == 0 and not report.get("incidents"),
           "exit %d, expected a clean run" % code, out, err)


def call_budget(tpcheck, fixtures):
    # --timeout is a budget per call, not silence on the pipe: a function whose
    # every call takes 0.8 s answers within a 1 s timeout each time, yet would
    # hold the run for an hour; it is stopped within seconds, and reported.
    with tempfile.TemporaryDirectory() as tmp:
        module = write(tmp, "moriio_slow.py", """
            import time

            def get_port_offset(dp_rank, tp_rank, tp_size=1):
                time.sleep(0.8)
""" + PORT_OFFSET_CHECKS)
        code, out, err, seconds = run(tpcheck, PROFILE + ["--json", "--timeout", "1", "--max-tp", "1", module],
                                      timeout=60)
    expect(code == 1 and seconds < 20, "exit %d after %.1f s, expected 1 within seconds" % (code, seconds), err)
    f = json.loads(out)["functions"][-1]
    expect([d["kind"] for d in f["deviations"]] == ["timed_out"], "kinds", f)
    expect(re.match(r"<timed out: \d+ calls? took [\d.]+ s, more than 10 ms per call by over the 1 s budget>",
                    f["deviations"][0]["smallest"]["actual"]), "the call over budget says why", f)
    expect(f["not_run"] > 1000, "the rest is not run", f)


def memory_limits(tpcheck, fixtures):
    # --profile children have an address-space limit; --adapter children have
    # their own, --memory (an adapter may import torch, which reserves much).
    with tempfile.TemporaryDirectory() as tmp:
        greedy = write(tmp, "moriio_greedy.py", """
            import mmap

            def get_port_offset(dp_rank, tp_rank, tp_size=1):
                mmap.mmap(-1, 6 << 30)
                return 0
            """)
        code, out, err, _ = run(tpcheck, PROFILE + ["--json", "--max-tp", "0", greedy])
        crash = json.loads(out)["functions"][-1]["deviations"][0]
        expect(crash["kind"] == "crashed" and re.match(r"(OSError|MemoryError)", crash["smallest"]["actual"]),
               "6 GiB is refused to a --profile child", crash)
        adapter = write(tmp, "torch_like_adapter.py", """
            import mmap

            _RESERVED = mmap.mmap(-1, 6 << 30)  # what an import like torch's may reserve

            def port_offset(dp_rank, tp_rank, tp_size):
""" + PORT_OFFSET_CHECKS)
        code, out, err, _ = run(tpcheck, ["conform", "--adapter", adapter, "--max-tp", "2"])
        expect(code == 0, "the adapter loads under the adapter default: exit %d" % code, out, err)
        expect_error(run(tpcheck, ["conform", "--adapter", adapter, "--max-tp", "2", "--memory", "1024"]), 2,
                     r"importing adapter .*torch_like_adapter\.py failed: (OSError|MemoryError)")


def run_scenario(scenarios, extra=()):
    """`SCRIPT TPCHECK FIXTURE_DIR SCENARIO ...`: runs scenarios[SCENARIO]
    (a script's globals()) on TPCHECK, FIXTURE_DIR and `extra`; prints ok or
    FAIL, returns the exit status. reports.py uses it too."""
    tpcheck, fixtures, scenario = sys.argv[1:4]
    try:
        scenarios[scenario](os.path.abspath(tpcheck), os.path.abspath(fixtures), *extra)
    except Failed as e:
        print("FAIL %s: %s" % (scenario, e))
        return 1
    print("ok " + scenario)
    return 0


def main():
    return run_scenario(globals(), [sys.argv[4]] if sys.argv[3] == "numpy_missing" else [])


if __name__ == "__main__":
    sys.exit(main())
