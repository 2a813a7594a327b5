#!/usr/bin/env python3
"""CTest driver for `tpcheck conform --write-tests` (standard library only).

usage: written_tests.py TPCHECK FIXTURE_DIR SCENARIO PYTHON

PYTHON is an interpreter with numpy and pytest (Debian's python3 with
python3-numpy and python3-pytest): the written files run in it, pytest's with
`PYTHON -m pytest`, unittest's with `PYTHON FILE`, as the engines' CI runs them.

Scenarios:
  profile:NAME   the profile's correct fixture copied into a scratch tree; the
                 tests written from it (--import-style source) pass, each
                 checked Python function has its file or a line saying why
                 not, and the kept cases kill every mutant the grid kills, at
                 most 60 of them. Then each fault of fixtures/faults.py on the
                 profile's files is put in place of its correct file: the
                 files that fail are exactly those of the functions its
                 expectation says deviate (those with a file).
  faulty         tests written from a faulty fixture fail on its deviation,
                 with what it does to a deployment as the message, and only
                 in its function's file.
  deterministic  the same input writes the same bytes.
  module_style   --import-style module: a file inside its package is imported
                 by its dotted path (the tests pass with the tree on
                 sys.path); one outside it by the profile's known module.
  bad_inputs     DIR missing, not a directory, not writable, a file there
                 (refused unless --force), options without --write-tests:
                 one line and exit 2, nothing written outside DIR.
  no_mutants     a function with nothing to mutate: one line, and its file
                 holds one case per outcome class.
  misbehaving    mutants that hang or eat memory: one line each, the run goes on.
"""
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_KEPT = 60

# Each profile's correct fixture: its files (relative to the fixture dir) and
# the expectations of its faults.
PROFILES = {
    "vllm-moriio": (["moriio_correct.py"], "expected"),
    "vllm-nixl": (["vllm/kv_connector/utils.py", "vllm/kv_connector/nixl/tp_mapping.py"], "expected"),
    "vllm-mooncake": (["vllm/kv_connector/utils.py", "vllm/kv_connector/mooncake/mooncake_connector.py"], "expected"),
    "sglang": (["sglang/common/conn.py", "sglang/common/staging_buffer.py", "sglang/mooncake/conn.py",
                "sglang/nixl/conn.py", "sglang/mori/conn.py"], "expected"),
    "trtllm": (["trtllm/python/peer.py", "trtllm/python/block.py"], "expected_trtllm_python"),
}


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def run(command, **kwargs):
    return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=900, **kwargs)


def write_tests(tpcheck, python, args, out_dir, expect_exit=(0, 1)):
    result = run([tpcheck, "conform", "--python", python, "--write-tests", out_dir] + args)
    check(result.returncode in expect_exit, "tpcheck conform %s exited %d: %s%s" % (
        " ".join(args), result.returncode, result.stdout[-2000:], result.stderr))
    return result


def snake(name):
    name = name.split(" (")[0]
    out = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()
    return re.sub(r"_+", "_", out.replace(".", "_")).strip("_")


def file_of(function):
    return "test_conform_%s.py" % snake(function)


def run_written(python, path):
    """Runs one written file as its engine's CI would; True when it passes."""
    with open(path, encoding="utf-8") as f:
        unittest = "unittest.main()" in f.read()
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    command = [python, path] if unittest else [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", path]
    result = run(command, cwd=os.path.dirname(path), env=env)
    check(result.returncode in (0, 1), "%s: %s exited %d:\n%s%s" % (
        os.path.basename(path), command[-1], result.returncode, result.stdout[-3000:], result.stderr[-3000:]))
    return result.returncode == 0, result.stdout + result.stderr


def table_rows(stdout):
    """The --mutants table: function -> (grid, kept, mutants, killed by grid, killed by kept)."""
    rows, inside = {}, False
    for line in stdout.splitlines():
        if line.startswith("mutants: "):
            inside = True
            continue
        m = re.match(r"  (.+?)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+[\d.]+$", line) if inside else None
        if m:
            rows[m.group(1)] = tuple(int(m.group(i)) for i in range(2, 7))
    return rows


def copy_tree(fixture_dir, files, into):
    for f in files:
        os.makedirs(os.path.dirname(os.path.join(into, f)), exist_ok=True)
        shutil.copyfile(os.path.join(fixture_dir, f), os.path.join(into, f))
    return [os.path.join(into, f) for f in files]


def faults_module(fixture_dir):
    sys.path.insert(0, fixture_dir)
    import faults  # noqa: E402 - the fixtures directory is only known at run time
    return faults


def scenario_profile(tpcheck, fixture_dir, python, profile):
    files, expected_dir = PROFILES[profile]
    with tempfile.TemporaryDirectory() as tmp:
        tree, out = os.path.join(tmp, "tree"), os.path.join(tmp, "tests")
        os.makedirs(out)
        given = copy_tree(fixture_dir, files, tree)
        result = write_tests(tpcheck, python, ["--profile", profile, "--import-style", "source"] + given, out,
                             expect_exit=(0,))
        rows = table_rows(result.stdout)
        report = run([tpcheck, "conform", "--profile", profile, "--python", python, "--json"] + given)
        functions = [f for f in json.loads(report.stdout)["functions"] if f["status"] == "checked"]
        written = set(os.listdir(out))
        for f in functions:
            name = f["name"]
            if "not written: %s: " % name in result.stdout:
                continue
            check(file_of(name) in written, "%s: neither a file %s nor a line saying why not" % (name, file_of(name)))
            check(name in rows, "%s: no line in the --mutants table" % name)
            grid, kept, mutants, by_grid, by_kept = rows[name]
            check(by_grid == by_kept, "%s: the grid kills %d mutants, the kept cases %d" % (name, by_grid, by_kept))
            check(0 < kept <= MAX_KEPT, "%s: %d cases kept (at most %d)" % (name, kept, MAX_KEPT))
            check(by_grid > 0 or "(without" in name or "nothing to mutate" in result.stdout,
                  "%s: the grid kills none of its %d mutants" % (name, mutants))
        check(written == {n for n in written if n.startswith("test_conform_")}, "stray files in DIR: %s" % written)
        for name in sorted(written):
            passed, output = run_written(python, os.path.join(out, name))
            check(passed, "%s fails on the correct fixture:\n%s" % (name, output[-3000:]))
        # Each fault of the profile's files, in place of its correct file: exactly its functions' files fail.
        faults = faults_module(fixture_dir)
        tried = 0
        for fault in sorted(faults.FAULTS):
            base = faults.correct_file(fault)
            expectation = os.path.join(HERE, expected_dir, fault + ".json")
            if base not in files or not os.path.exists(expectation):
                continue
            with open(expectation, encoding="utf-8") as f:
                want = json.load(f)
            deviating = {file_of(n) for n, w in want["functions"].items() if w.get("deviations")}
            faulty = faults.materialize(fixture_dir, fault, os.path.join(tmp, "faulty"))
            target = os.path.join(tree, base)
            shutil.copyfile(faulty, target)
            try:
                failing = {name for name in sorted(written) if not run_written(python, os.path.join(out, name))[0]}
            finally:
                shutil.copyfile(os.path.join(fixture_dir, base), target)
            check(failing == deviating & written, "fault %s: the files that fail are %s, expected %s" % (
                fault, sorted(failing), sorted(deviating & written)))
            tried += 1
        check(tried > 0, "no fault of profile %s was tried" % profile)
        print("%s: %d files pass on the correct fixture; %d faults each fail exactly their functions' files" % (
            profile, len(written), tried))


def scenario_faulty(tpcheck, fixture_dir, python):
    faults = faults_module(fixture_dir)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "tests")
        os.makedirs(out)
        faulty = faults.materialize(fixture_dir, "moriio_quorum_first_ranks", tmp)
        result = write_tests(tpcheck, python, ["--profile", "vllm-moriio", "--import-style", "source", faulty], out,
                             expect_exit=(1,))
        check("1 failing on the code as it is" in result.stdout, "the deviation is not announced:\n" + result.stdout)
        for name in sorted(os.listdir(out)):
            passed, output = run_written(python, os.path.join(out, name))
            if name == file_of("_read_completion_quorum"):
                check(not passed, "%s passes on the fault" % name)
                check("wrong_value: a prefill rank waits for completions that never come" in output,
                      "the failure does not say what the deviation does:\n" + output[-2000:])
                check("1 failed" in output, "not exactly its deviation fails:\n" + output[-2000:])
            else:
                check(passed, "%s fails on a fault of another function:\n%s" % (name, output[-2000:]))


def scenario_deterministic(tpcheck, fixture_dir, python):
    with tempfile.TemporaryDirectory() as tmp:
        texts = []
        for k in range(2):
            out = os.path.join(tmp, "tests%d" % k)
            os.makedirs(out)
            write_tests(tpcheck, python, ["--profile", "vllm-moriio", os.path.join(fixture_dir, "moriio_correct.py")],
                        out, expect_exit=(0,))
            texts.append({n: open(os.path.join(out, n), "rb").read() for n in sorted(os.listdir(out))})
        check(texts[0] and texts[0] == texts[1], "two runs wrote different files: %s and %s" % (
            sorted(texts[0]), sorted(texts[1])))


MORIIO_PACKAGE = "vllm/distributed/kv_transfer/kv_connector/v1/moriio"


def scenario_module_style(tpcheck, fixture_dir, python):
    with open(os.path.join(fixture_dir, "moriio_correct.py"), encoding="utf-8") as f:
        source = f.read()
    # The fixture's functions without the imports of modules not installed here.
    functions = [ast.get_source_segment(source, node) for node in ast.parse(source).body
                 if isinstance(node, ast.FunctionDef)]
    with tempfile.TemporaryDirectory() as tmp:
        package = os.path.join(tmp, "checkout", MORIIO_PACKAGE)
        os.makedirs(package)
        parts = MORIIO_PACKAGE.split("/")
        for i in range(1, len(parts) + 1):
            open(os.path.join(tmp, "checkout", *parts[:i], "__init__.py"), "w").close()
        module = os.path.join(package, "moriio_connector.py")
        with open(module, "w", encoding="utf-8") as f:
            f.write("\n\n".join(functions) + "\n")
        out = os.path.join(tmp, "tests")
        os.makedirs(out)
        write_tests(tpcheck, python, ["--profile", "vllm-moriio", "--function", "get_port_offset", module], out,
                    expect_exit=(0,))
        path = os.path.join(out, file_of("get_port_offset"))
        text = open(path, encoding="utf-8").read()
        wanted = "from %s.moriio_connector import get_port_offset" % MORIIO_PACKAGE.replace("/", ".")
        check(wanted in text and "_load(" not in text, "no import by the package's path:\n" + text[:3000])
        env = dict(os.environ, PYTHONPATH=os.path.join(tmp, "checkout"), PYTHONDONTWRITEBYTECODE="1")
        result = run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", path], env=env, cwd=out)
        check(result.returncode == 0, "the module-style file fails:\n" + result.stdout[-3000:] + result.stderr)
        # Outside its package: the profile's known module of the function.
        os.remove(path)
        write_tests(tpcheck, python, ["--profile", "vllm-moriio", "--function", "get_port_offset",
                                      os.path.join(fixture_dir, "moriio_correct.py")], out, expect_exit=(0,))
        text = open(path, encoding="utf-8").read()
        check("from vllm.distributed.kv_transfer.kv_connector.v1.moriio.moriio_common import get_port_offset" in text,
              "no import by the known module:\n" + text[:3000])
        check(text.startswith("# SPDX-License-Identifier: Apache-2.0\n") and "@pytest.mark.cpu_test" in text,
              "not in vLLM's conventions:\n" + text[:3000])


def scenario_bad_inputs(tpcheck, fixture_dir, python):
    fixture = os.path.join(fixture_dir, "moriio_correct.py")
    with tempfile.TemporaryDirectory() as tmp:
        cwd = os.path.join(tmp, "cwd")
        os.makedirs(cwd)
        out = os.path.join(tmp, "tests")
        os.makedirs(out)

        def refused(args, line):
            result = run([tpcheck, "conform", "--python", python] + args, cwd=cwd)
            check(result.returncode == 2, "%s: exit %d, expected 2" % (args, result.returncode))
            lines = result.stderr.strip().splitlines()
            check(len(lines) == 1 and line in lines[0], "%s: stderr %r, expected one line with %r" % (
                args, result.stderr, line))

        base = ["--profile", "vllm-moriio"]
        refused(base + ["--write-tests", os.path.join(tmp, "missing"), fixture], "no such directory")
        refused(base + ["--write-tests", fixture, fixture], "not a directory")
        refused(base + ["--write-tests", "/proc/self", fixture], "not writable")
        refused(base + ["--import-style", "source", fixture], "--import-style is an option of --write-tests")
        refused(base + ["--force", fixture], "--force is an option of --write-tests")
        refused(base + ["--write-tests", out, "--import-style", "both", fixture], "--import-style is module or source")
        refused(base + ["--mutants", "--json", fixture], "not with --fuzz, --baseline or --json")
        existing = os.path.join(out, file_of("get_port_offset"))
        with open(existing, "w", encoding="utf-8") as f:
            f.write("# the project's own\n")
        refused(base + ["--write-tests", out, "--function", "get_port_offset", fixture], "exists (give --force")
        check(open(existing, encoding="utf-8").read() == "# the project's own\n", "a refused run changed the file")
        write_tests(tpcheck, python, base + ["--function", "get_port_offset", "--force", fixture], out,
                    expect_exit=(0,))
        check(open(existing, encoding="utf-8").read().startswith("# SPDX"), "--force did not replace the file")
        check(os.listdir(cwd) == [], "files written outside DIR: %s" % os.listdir(cwd))
        check(sorted(os.listdir(out)) == [file_of("get_port_offset")], "DIR holds %s" % os.listdir(out))


def scenario_no_mutants(tpcheck, fixture_dir, python):
    adapter = os.path.join(fixture_dir, "adapter_no_arithmetic.py")
    with tempfile.TemporaryDirectory() as tmp:
        result = write_tests(tpcheck, python, ["--adapter", adapter, "--function", "kv_heads_guard"], tmp)
        check("kv_heads_guard: nothing to mutate" in result.stdout, "no line says so:\n" + result.stdout)
        rows = table_rows(result.stdout)
        check(rows.get("kv_heads_guard", (0, 0, 1))[2] == 0, "mutants made: %s" % rows)
        text = open(os.path.join(tmp, file_of("kv_heads_guard")), encoding="utf-8").read()
        classes = re.findall(r"^    # (.*)$", text, re.M)
        check(len(classes) >= 3 and len(classes) == len(set(classes)), "not one case per outcome class: %s" % classes)
        rows_written = len(re.findall(r"^    \(", text, re.M))
        check(rows_written == len(classes), "%d cases for %d outcome classes" % (rows_written, len(classes)))


def scenario_misbehaving(tpcheck, fixture_dir, python):
    adapter = os.path.join(fixture_dir, "adapter_mutants_misbehave.py")
    with tempfile.TemporaryDirectory() as tmp:
        # A budget that a mutant filling 256 MiB meets within, on a loaded machine too.
        result = write_tests(tpcheck, python, ["--adapter", adapter, "--function", "remote_rank", "--timeout", "3",
                                               "--memory", "256"], tmp, expect_exit=(0,))
        hung = [line for line in result.stdout.splitlines() if " hung on (" in line]
        ate = [line for line in result.stdout.splitlines() if " ran out of memory or killed its process" in line]
        check(hung and ate, "no line for the mutant that hangs and the one that eats memory:\n" + result.stdout)
        rows = table_rows(result.stdout)
        check(rows["remote_rank"][3] == rows["remote_rank"][4], "kills differ: %s" % rows)
        passed, output = run_written(python, os.path.join(tmp, file_of("remote_rank")))
        check(passed, "the file fails on the adapter:\n" + output[-2000:])


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: written_tests.py TPCHECK FIXTURE_DIR SCENARIO PYTHON")
    tpcheck, fixture_dir, scenario, python = sys.argv[1:]
    tpcheck, fixture_dir = os.path.abspath(tpcheck), os.path.abspath(fixture_dir)
    scenarios = {"faulty": scenario_faulty, "deterministic": scenario_deterministic,
                 "module_style": scenario_module_style, "bad_inputs": scenario_bad_inputs,
                 "no_mutants": scenario_no_mutants, "misbehaving": scenario_misbehaving}
    try:
        if scenario.startswith("profile:"):
            scenario_profile(tpcheck, fixture_dir, python, scenario.split(":", 1)[1])
        elif scenario in scenarios:
            scenarios[scenario](tpcheck, fixture_dir, python)
        else:
            sys.exit("unknown scenario %s" % scenario)
    except Failure as e:
        print("FAIL %s: %s" % (scenario, e))
        sys.exit(1)
    print("ok %s" % scenario)


if __name__ == "__main__":
    main()
