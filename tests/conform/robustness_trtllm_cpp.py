#!/usr/bin/env python3
"""The C++ child of `tpcheck conform --profile trtllm` under bad input and
misbehaving code (standard library only).

usage: robustness_trtllm_cpp.py TPCHECK FIXTURE_DIR SCENARIO

FIXTURE_DIR is tests/conform/fixtures/trtllm/cpp. Each scenario runs tpcheck
and asserts its exit status, its one-line error or what the report says.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time


def run(tpcheck, args, env=None, timeout=600):
    full_env = dict(os.environ)
    full_env.update(env or {})
    started = time.monotonic()
    r = subprocess.run([tpcheck, "conform", "--profile", "trtllm"] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=timeout, env=full_env)
    r.seconds = time.monotonic() - started
    return r


def expect(condition, what, failures):
    if not condition:
        failures.append(what)


def misbehaving(fixture_dir, into, peer, self_, action):
    with open(os.path.join(fixture_dir, "robustness", "misbehaving.cpp")) as f:
        text = f.read()
    text = text.replace("MISBEHAVE_PEER", str(peer)).replace("MISBEHAVE_SELF", str(self_))
    text = text.replace("MISBEHAVE;", action)
    path = os.path.join(into, "cacheSplitConcat.cpp")
    with open(path, "w") as f:
        f.write(text)
    return path


def function(report, name):
    return next(f for f in report["functions"] if f["name"] == name)


def scenario(name, tpcheck, fixtures, tmp):
    failures = []
    split, formatter = os.path.join(fixtures, "cacheSplitConcat.cu"), os.path.join(fixtures, "cacheFormatter.cpp")
    if name == "build_error":
        # A file that does not build: one line, the compiler's first error at its place in the file.
        r = run(tpcheck, [os.path.join(fixtures, "robustness", "broken_build.cpp")])
        expect(r.returncode == 2, "exit %d, expected 2" % r.returncode, failures)
        lines = r.stderr.strip().splitlines()
        expect(len(lines) == 1, "%d lines on stderr: %r" % (len(lines), r.stderr), failures)
        expect(re.search(r"broken_build\.cpp:13:\d+: error: .*computeRanksSomehow", r.stderr),
               "not the compiler's first error at line 13: %r" % r.stderr, failures)
    elif name == "member_unbuilt":
        # A member that calls a function of a file not given (newer versions
        # move pickRecvConnections' work to another file): it is skipped with
        # the compiler's first error, and the other functions are checked.
        with open(formatter) as f:
            text = f.read()
        head = "std::vector<size_t> CacheFormatter::pickRecvConnections("
        start = text.index(head)
        body = text.index("{", start)
        end = text.index("\n}\n", body)
        text = (text[:body] + "{\n    return cache_formatter_utils::pickRecvConnections(numConnections, selfConfig, "
                "selfIdx, destConfig, counterPartRanks);" + text[end:])
        line = text[:text.index("cache_formatter_utils")].count("\n") + 1
        path = os.path.join(tmp, "cacheFormatter.cpp")
        with open(path, "w") as f:
            f.write(text)
        env = {"TPCHECK_CACHE_DIR": os.path.join(tmp, "cache")}
        for attempt in ("cold", "cached"):
            r = run(tpcheck, ["--max-tp", "4", "--json", split, path], env=env)
            expect(r.returncode == 0, "%s: exit %d: %s" % (attempt, r.returncode, r.stderr), failures)
            if not r.stdout:
                break
            report = json.loads(r.stdout)
            pick = function(report, "CacheFormatter::pickRecvConnections")
            expect(pick["status"] == "skipped" and "does not build against tpcheck's stub" in pick.get("reason", "")
                   and re.search(r"cacheFormatter\.cpp:%d:\d+: error: " % line, pick.get("reason", "")),
                   "%s: pickRecvConnections %r" % (attempt, pick), failures)
            for other in ("targetIRanks", "CacheFormatter::needSendCache", "CacheFormatter::inquireSupport"):
                f = function(report, other)
                expect(f["status"] == "checked" and f.get("cases", 0) > 0, "%s: %s %r" % (attempt, other, f), failures)
    elif name == "no_target":
        r = run(tpcheck, [formatter])
        expect(r.returncode == 2 and "targetIRanks is defined in none of the given files" in r.stderr,
               "exit %d, stderr %r" % (r.returncode, r.stderr), failures)
    elif name == "no_compiler":
        r = run(tpcheck, [split, formatter], env={"CXX": "/nonexistent/c++", "TPCHECK_CACHE_DIR": tmp})
        expect(r.returncode == 2 and "no C++ compiler found" in r.stderr and len(r.stderr.splitlines()) == 1,
               "exit %d, stderr %r" % (r.returncode, r.stderr), failures)
    elif name == "python_files":
        # C++ files go to the C++ child, Python files to the Python child: a
        # Python file that defines none of the profile's Python functions is refused.
        r = run(tpcheck, [split, os.path.join(fixtures, "faults.py")])
        expect(r.returncode == 2 and "none of the Python functions of profile trtllm can be checked in the given "
               "Python files" in r.stderr and "faults.py" in r.stderr,
               "exit %d with a Python file and no Python function: %r" % (r.returncode, r.stderr), failures)
        r = subprocess.run([tpcheck, "conform", "--profile", "vllm-moriio", split], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=120)
        expect(r.returncode == 2 and "is C++ source" in r.stderr, "vllm-moriio on C++: %r" % r.stderr, failures)
        r = subprocess.run([tpcheck, "conform", "--profile", "vllm-moriio", "--fuzz", "5", split],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
        expect(r.returncode == 2 and "--fuzz" in r.stderr, "--fuzz on vllm-moriio: %r" % r.stderr, failures)
    elif name == "crash":
        # A segmentation fault for one sizing: the child is restarted, the case blamed.
        path = misbehaving(fixtures, tmp, 2, 1, "*static_cast<int volatile*>(nullptr) = 1;")
        r = run(tpcheck, ["--max-tp", "4", "--json", path])
        expect(r.returncode == 1, "exit %d, expected 1: %s" % (r.returncode, r.stderr), failures)
        report = json.loads(r.stdout)
        f = function(report, "targetIRanks")
        crashed = [d for d in f["deviations"] if d["kind"] == "crashed"]
        # P=1, D=2: context rank 0 asks targetIRanks about the 2 generation ranks (peer 2, self 1).
        expect(crashed and crashed[0]["smallest"]["args"] == [1, 2, 1, 2, 2, False, False, 0, 0, 0],
               "crashed: %r" % f["deviations"], failures)
        expect(any("signal 11" in i for i in report["incidents"]), "incidents: %r" % report["incidents"], failures)
        expect([d["kind"] for d in f["deviations"]] == ["crashed"], "kinds: %r" % f["deviations"], failures)
    elif name == "hang":
        # A call that never returns: cut off at its budget, the function abandoned, the run bounded.
        path = misbehaving(fixtures, tmp, 4, 4, "for (;;) { static int volatile spin; spin = spin + 1; }")
        r = run(tpcheck, ["--max-tp", "4", "--timeout", "1", "--json", path])
        expect(r.returncode == 1, "exit %d, expected 1: %s" % (r.returncode, r.stderr), failures)
        f = function(json.loads(r.stdout), "targetIRanks")
        expect([d["kind"] for d in f["deviations"]] == ["timed_out"], "kinds: %r" % f["deviations"], failures)
        expect(f["deviations"] and f["deviations"][0]["smallest"]["args"][:2] == [4, 4], "smallest: %r" % f["deviations"],
               failures)
        expect(f["not_run"] > 0, "nothing abandoned: %r" % f, failures)
        expect(r.seconds < 60, "the run took %.1f s" % r.seconds, failures)
    elif name == "reports":
        sys.path.insert(0, fixtures)
        import faults  # noqa: E402
        # Where check_trtllm_cpp.py puts the same fault: its compiled child is shared.
        cache = os.environ.get("TPCHECK_CACHE_DIR")
        faulty = faults.materialize(fixtures, "head_based_target",
                                    os.path.join(cache, "fixtures", "head_based_target") if cache else tmp)
        sarif = os.path.join(tmp, "out.sarif")
        markdown = os.path.join(tmp, "out.md")
        r = run(tpcheck, ["--max-tp", "4", "--json", "--sarif", sarif, "--markdown", markdown, faulty, formatter])
        expect(r.returncode == 1, "exit %d: %s" % (r.returncode, r.stderr), failures)
        report = json.loads(r.stdout)
        f = function(report, "targetIRanks")
        shared = ["P", "D", "H", "ctx_layers", "gen_layers", "ctx_adp", "gen_adp", "c", "g"]
        expect(f["params"] == shared + ["d"], "params %r" % f["params"], failures)
        expect(function(report, "CacheFormatter::needSendCache")["params"] == shared + ["p"], "needSendCache params",
               failures)
        with open(faulty) as src:
            line = next(i for i, l in enumerate(src, 1) if l.startswith("TargetRanksInfo targetIRanks("))
        expect(f["line"] == line, "line %d, the definition is at %d" % (f["line"], line), failures)
        with open(sarif) as s:
            results = json.load(s)["runs"][0]["results"]
        located = [x for x in results if x["ruleId"] == "rank_out_of_range"]
        expect(located and located[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == line,
               "SARIF results: %r" % [(x["ruleId"], x["locations"]) for x in results], failures)
        with open(markdown) as m:
            text = m.read()
        expect("rank_out_of_range" in text and "targetIRanks" in text, "markdown: %r" % text[:300], failures)
        # --record then --baseline: the same files change nothing; the fault changes cases.
        record = os.path.join(tmp, "record.txt")
        r = run(tpcheck, ["--max-tp", "4", "--record", record, split, formatter])
        expect(r.returncode == 0, "record: exit %d %s" % (r.returncode, r.stderr), failures)
        r = run(tpcheck, ["--max-tp", "4", "--baseline", record, "--json", split, formatter])
        expect(r.returncode == 0 and all(f.get("changes", 0) == 0 for f in json.loads(r.stdout)["functions"]),
               "baseline of the same files: exit %d" % r.returncode, failures)
        r = run(tpcheck, ["--max-tp", "4", "--baseline", record, "--json", faulty, formatter])
        changed = function(json.loads(r.stdout), "targetIRanks")["changes"] if r.stdout else 0
        expect(r.returncode == 1 and changed > 0, "baseline of the fault: exit %d, %d changes" % (r.returncode, changed),
               failures)
    else:
        failures.append("unknown scenario " + name)
    return failures


def main():
    tpcheck, fixtures, name = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as tmp:
        failures = scenario(name, tpcheck, fixtures, tmp)
    if failures:
        print("FAIL %s:\n  %s" % (name, "\n  ".join(failures)))
        return 1
    print("ok " + name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
