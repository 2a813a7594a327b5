#!/usr/bin/env python3
"""CTest driver: action.yml and the example workflow, run locally the way
GitHub's runner runs them (tests/ci/action_runner.py), without network.

usage: action_test.py SCENARIO SOURCE_DIR FIXTURE_DIR DEB_DIR

tpcheck is the .deb the package.deb test built in DEB_DIR: unpacked onto
PATH ("already installed"), or installed by the action from a file:// URL or
a path (apt-get is a stand-in that unpacks it), or built from the action's
source (cmake and apt-get are stand-ins: the build is the one the package was
made from, so what is proved is how the step calls them and puts the result
on PATH). The upload step is not run; its inputs are checked.

faulty          a faulty connector: SARIF uploaded, summary written, job fails
clean           a correct connector: the job passes, nothing deviates
no_fail         fail-on-deviations 'false': the job passes, exit-code is 1;
                step-summary 'false': nothing written to the job's page
load_error      a file that does not exist: the conform step fails, nothing uploaded
deb_url         tpcheck-deb as a file:// URL (curl) and as a path; a missing one fails
build           no .deb, no tpcheck: built from the action's source and put on PATH
baseline        record, then baseline: only the changed cases are reported
example         the example workflow's job, each matrix entry, on a vLLM-shaped
                checkout and its base branch
"""
import json
import os
import re
import shutil
import sys
import tempfile
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import action_runner  # noqa: E402
import yaml_subset  # noqa: E402
from ci_support import (CHECKOUT, KV, UPLOAD_SARIF, VLLM_PATHS, expect, main, read, run, stand_ins,  # noqa: E402
                        unpack_deb, vllm_tree)

MORIIO_FILES = "%s/v1/moriio/moriio_connector.py %s/v1/moriio/moriio_common.py" % (KV, KV)
STEPS = ["Install tpcheck", "Run tpcheck conform", "Upload the SARIF to code scanning", "Fail on deviations"]


class Bench:
    """A job's machine: the unpacked package, the stand-ins, a workspace."""

    def __init__(self, top, source_dir, fixtures, deb_dir, on_path=True):
        self.top, self.source_dir, self.fixtures = top, source_dir, fixtures
        self.deb, self.package_bin = unpack_deb(deb_dir, os.path.join(top, "package"))
        self.log = os.path.join(top, "commands.log")
        open(self.log, "w").close()
        self.apt_root = os.path.join(top, "apt-root")
        stand_ins(os.path.join(top, "stand-ins"), self.log, self.apt_root, os.path.join(top, "package"))
        self.workspace = os.path.join(top, "workspace")
        os.makedirs(self.workspace)
        path = [os.path.join(top, "stand-ins")] + ([self.package_bin] if on_path else []) + [
            os.path.join(self.apt_root, "usr", "bin"), "/usr/bin", "/bin"]
        self.env = {"PATH": os.pathsep.join(path), "HOME": top, "LANG": "C.UTF-8"}
        self.jobs = 0

    def commands(self):
        return read(self.log).splitlines()

    def runner_temp(self):
        """A new RUNNER_TEMP for each job."""
        self.jobs += 1
        return os.path.join(self.top, "runner-temp-%d" % self.jobs)

    def action(self, **inputs):
        result = action_runner.ActionRunner(self.source_dir).run(inputs, self.workspace, self.env, [UPLOAD_SARIF],
                                                                 self.runner_temp())
        expect([s["name"] for s in result.steps] == STEPS, "the action's steps", [s["name"] for s in result.steps])
        return result


def outcomes(result):
    return [s["outcome"] for s in result.steps]


def uploaded_sarif(result, workspace, profile):
    """The SARIF the upload step was given: valid, its files in the workspace."""
    upload = result.step("Upload the SARIF to code scanning")
    expect(upload["outcome"] == "success" and upload["uses"] == UPLOAD_SARIF, "the upload step ran", upload)
    expect(set(upload["with"]) == {"sarif_file"}, "only the file: its category is in it", upload["with"])
    path = upload["with"]["sarif_file"]
    expect(os.path.isabs(path) and os.path.isfile(path) and path == result.outputs["sarif-file"],
           "sarif_file is the SARIF written, by its absolute path", path, result.outputs)
    sarif = json.loads(read(path))
    expect(sarif["version"] == "2.1.0", "SARIF 2.1.0", sarif.get("version"))
    run = sarif["runs"][0]
    expect(run["automationDetails"]["id"] == "tpcheck-conform/%s/" % profile, "one category per profile",
           run["automationDetails"])
    base = run["originalUriBaseIds"]["SRCROOT"]["uri"]
    expect(base == "file://" + urllib.parse.quote(workspace) + "/", "URIs relative to the workspace", base)
    for r in run["results"]:
        uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        expect(uri.startswith(KV + "/") and os.path.isfile(os.path.join(workspace, uri)),
               "a result's file is in the workspace, by its repository path", uri)
    return run


def faulty(source_dir, fixtures, deb_dir):
    with tempfile.TemporaryDirectory() as top:
        bench = Bench(top, source_dir, fixtures, deb_dir)
        vllm_tree(bench.workspace, fixtures, fault="moriio_upstream_ack_count")
        result = bench.action(profile="vllm-moriio", files=MORIIO_FILES, **{"max-tp": "8"})
        expect(outcomes(result) == ["success", "success", "success", "failure"] and not result.success,
               "deviations: uploaded, then the job fails", result.log())
        expect("tpcheck: using " + os.path.join(bench.package_bin, "tpcheck") in result.step(STEPS[0])["stdout"],
               "the tpcheck on PATH is used", result.log())
        expect(result.outputs["exit-code"] == "1", "exit-code output", result.outputs)
        run = uploaded_sarif(result, bench.workspace, "vllm-moriio")
        expect({(r["properties"]["function"], r["ruleId"]) for r in run["results"]} ==
               {("get_moriio_expected_ack_count", "wrong_value"), ("get_moriio_expected_ack_count", "accepts_invalid")},
               "the fault's results", run["results"])
        expect(result.summary.startswith("### tpcheck conform, profile vllm-moriio: ") and
               re.search(r"^\| `get_moriio_expected_ack_count` at `%s/v1/moriio/moriio_connector.py:\d+` \| "
                         % re.escape(KV), result.summary, re.M), "the summary table", result.summary)
        expect("::error title=tpcheck conform::the connector deviates" in result.step(STEPS[3])["stdout"],
               "the failure is annotated", result.log())
        expect(bench.commands() == [], "nothing installed", bench.commands())


def clean(source_dir, fixtures, deb_dir):
    with tempfile.TemporaryDirectory() as top:
        bench = Bench(top, source_dir, fixtures, deb_dir)
        vllm_tree(bench.workspace, fixtures)
        # The MoRIIO fixture is a version without get_moriio_expected_ack_count,
        # the NIXL one a version before the hybrid state's five functions.
        for profile, files, skipped in [("vllm-moriio", MORIIO_FILES, 1),
                                        ("vllm-nixl", "%s/utils.py\n%s/v1/nixl/tp_mapping.py" % (KV, KV), 5),
                                        ("vllm-mooncake", "%s/v1/*/mooncake_connector.py %s/utils.py" % (KV, KV), 0)]:
            result = bench.action(profile=profile, files=files, python="/usr/bin/python3", **{"max-tp": "8"})
            expect(outcomes(result) == ["success", "success", "success", "skipped"] and result.success,
                   profile + ": the job passes", result.log())
            expect(uploaded_sarif(result, bench.workspace, profile)["results"] == [], "no results", profile)
            expect(": no deviations in " in result.summary.splitlines()[0], "the summary says so", result.summary)
            expect(result.summary.count("| skipped |") == skipped,
                   profile + ": every function found (numpy, files split at newlines, globs)", result.summary)


def no_fail(source_dir, fixtures, deb_dir):
    with tempfile.TemporaryDirectory() as top:
        bench = Bench(top, source_dir, fixtures, deb_dir)
        vllm_tree(bench.workspace, fixtures, fault="moriio_upstream_ack_count")
        result = bench.action(profile="vllm-moriio", files=MORIIO_FILES, **{"fail-on-deviations": "false",
                                                                            "upload-sarif": "false"})
        expect(outcomes(result) == ["success", "success", "skipped", "skipped"] and result.success,
               "reported, not failed, not uploaded", result.log())
        expect(result.outputs["exit-code"] == "1" and os.path.isfile(result.outputs["sarif-file"]),
               "the outputs say what was found", result.outputs)
        result = bench.action(profile="vllm-moriio", files=MORIIO_FILES, **{"fail-on-deviations": "false",
                                                                            "upload-sarif": "false",
                                                                            "step-summary": "false"})
        expect(result.success and result.summary == "", "step-summary 'false': nothing on the job's page",
               result.summary)


def load_error(source_dir, fixtures, deb_dir):
    with tempfile.TemporaryDirectory() as top:
        bench = Bench(top, source_dir, fixtures, deb_dir)
        vllm_tree(bench.workspace, fixtures)
        result = bench.action(profile="vllm-moriio", files=KV + "/v1/moriio/no_such_*.py")
        expect(outcomes(result) == ["success", "failure", "skipped", "skipped"] and not result.success,
               "the conform step fails, nothing follows", result.log())
        conform = result.step(STEPS[1])
        expect(conform["exit_status"] == 2 and "::error title=tpcheck conform::usage or load error" in conform["stdout"]
               and re.search(r"cannot read .*no_such_\*\.py", conform["stderr"]), "the error is said", result.log())
        expect(result.outputs == {"exit-code": "2", "sarif-file": ""}, "exit-code 2", result.outputs)
        result = bench.action(profile="vllm-nope", files=MORIIO_FILES)
        expect(outcomes(result)[1] == "failure" and "unknown profile 'vllm-nope'" in result.step(STEPS[1])["stderr"],
               "an unknown profile", result.log())
        try:
            bench.action(files=MORIIO_FILES)
            expect(False, "a missing required input is refused")
        except action_runner.ActionError as e:
            expect("required input 'profile'" in str(e), "the runner refuses it", e)


def deb_url(source_dir, fixtures, deb_dir):
    with tempfile.TemporaryDirectory() as top:
        bench = Bench(top, source_dir, fixtures, deb_dir, on_path=False)
        vllm_tree(bench.workspace, fixtures)
        url = "file://" + urllib.parse.quote(bench.deb)
        result = bench.action(profile="vllm-moriio", files=MORIIO_FILES, **{"tpcheck-deb": url})
        expect(result.success, "installed from the URL, conform passes", result.log())
        expect(bench.commands()[:2] == ["apt-get update -qq", "apt-get install -y -qq %s/tpcheck.deb" %
                                        os.path.realpath(os.path.dirname(result.outputs["sarif-file"]))],
               "apt-get installs the downloaded package by its path", bench.commands())
        version = result.step(STEPS[1])["stdout"].splitlines()[0]
        expect(re.fullmatch(r"tpcheck \d+\.\d+\.\d+", version), "the installed tpcheck runs", result.log())
        # A path relative to the workspace.
        shutil.rmtree(bench.apt_root)
        open(bench.log, "w").close()
        os.makedirs(os.path.join(bench.workspace, "dist"))
        shutil.copy(bench.deb, os.path.join(bench.workspace, "dist", "tpcheck.deb"))
        result = bench.action(profile="vllm-moriio", files=MORIIO_FILES, **{"tpcheck-deb": "dist/tpcheck.deb"})
        expect(result.success and bench.commands()[1] == "apt-get install -y -qq %s/dist/tpcheck.deb"
               % os.path.realpath(bench.workspace), "installed from a relative path", bench.commands(), result.log())
        shutil.rmtree(bench.apt_root)
        result = bench.action(profile="vllm-moriio", files=MORIIO_FILES, **{"tpcheck-deb": "dist/missing.deb"})
        expect(outcomes(result) == ["failure", "skipped", "skipped", "skipped"] and
               "tpcheck-deb: no such file: dist/missing.deb" in result.step(STEPS[0])["stdout"],
               "a missing package stops the job", result.log())


def build(source_dir, fixtures, deb_dir):
    with tempfile.TemporaryDirectory() as top:
        bench = Bench(top, source_dir, fixtures, deb_dir, on_path=False)
        vllm_tree(bench.workspace, fixtures)
        result = bench.action(profile="vllm-moriio", files=MORIIO_FILES)
        expect(result.success, "built, installed, found on PATH by the next step", result.log())
        commands = bench.commands()
        temp = re.search(r"-B (\S+)/tpcheck-build ", " ".join(commands))
        expect(temp is not None, "configured into the runner's temporary directory", commands)
        temp = temp.group(1)
        expect(commands[2:] == [
            "cmake -S %s -B %s/tpcheck-build -DCMAKE_BUILD_TYPE=Release -DTPCHECK_PROVE=OFF" % (source_dir, temp),
            "cmake --build %s/tpcheck-build --target tpcheck -j%s" % (temp, run(["nproc"]).stdout.strip()),
            "cmake --install %s/tpcheck-build --prefix %s/tpcheck" % (temp, temp)], "the build's commands", commands)
        expect(commands[0] == "apt-get update -qq" and commands[1].startswith("apt-get install -y -qq "
                                                                               "--no-install-recommends cmake "),
               "the build's packages", commands)
        expect(re.fullmatch(r"tpcheck \d+\.\d+\.\d+", result.step(STEPS[1])["stdout"].splitlines()[0]),
               "the conform step runs the tpcheck the install step put on PATH", result.log())


def baseline(source_dir, fixtures, deb_dir):
    with tempfile.TemporaryDirectory() as top:
        bench = Bench(top, source_dir, fixtures, deb_dir)
        vllm_tree(os.path.join(bench.workspace, "base"), fixtures)
        vllm_tree(bench.workspace, fixtures, fault="moriio_quorum_first_ranks")
        record = os.path.join(top, "base-outcomes.txt")
        result = bench.action(profile="vllm-moriio", files=MORIIO_FILES, record=record, **{
            "working-directory": "base", "upload-sarif": "false", "fail-on-deviations": "false"})
        expect(result.success and result.outputs["exit-code"] == "0" and os.path.isfile(record), "recorded",
               result.log())
        result = bench.action(profile="vllm-moriio", files=MORIIO_FILES, baseline=record)
        expect(outcomes(result) == ["success", "success", "success", "failure"], "a changed case deviates",
               result.log())
        run = uploaded_sarif(result, bench.workspace, "vllm-moriio")
        expect([r["properties"]["function"] for r in run["results"]] == ["_read_completion_quorum"] and
               "changed since the baseline" in run["results"][0]["message"]["text"], "only the changed function",
               run["results"])
        expect("compared with the baseline" in result.summary and "| changed |" in result.summary,
               "the summary says so", result.summary)


def example(source_dir, fixtures, deb_dir):
    path = os.path.join(source_dir, "examples", "github", "vllm-kv-connectors.yml")
    text = read(path)
    workflow = yaml_subset.load(text)
    expect(workflow["on"] == {"pull_request": {"paths": ["vllm/distributed/kv_transfer/**"]}},
           "runs on pull requests that touch the KV transfer code", workflow["on"])
    expect(workflow["permissions"].get("security-events") == "write", "may upload SARIF", workflow["permissions"])
    job = workflow["jobs"]["conform"]
    entries = job["strategy"]["matrix"]["include"]
    expect(sorted(e["profile"] for e in entries) == ["vllm-mooncake", "vllm-moriio", "vllm-nixl"], "every profile",
           entries)
    action = [s["uses"] for s in job["steps"] if "uses" in s and s["uses"] not in (CHECKOUT,)]
    expect(len(set(action)) == 1 and len(action) == 2, "the action, twice (record, then compare)", action)
    releases = re.findall(r"https://\S+\.deb", text)
    expect(len(releases) == 1, "one release .deb URL", releases)
    for entry in entries:
        for name in entry["files"].split():
            expect(name in VLLM_PATHS.values() or name.endswith("moriio_common.py"), "a file of vLLM's tree", name)
    # The pull request changes MoRIIO (a fault) and adds Mooncake (not on the
    # base branch); NIXL's files are as on the base branch.
    expected = {"vllm-moriio": (False, ["_read_completion_quorum"]), "vllm-nixl": (True, []),
                "vllm-mooncake": (True, [])}
    for entry in entries:
        with tempfile.TemporaryDirectory() as top:
            bench = Bench(top, source_dir, fixtures, deb_dir, on_path=False)
            local = text.replace(releases[0], "file://" + urllib.parse.quote(bench.deb))
            vllm_tree(bench.workspace, fixtures, fault="moriio_quorum_first_ranks")
            vllm_tree(os.path.join(bench.workspace, "base"), fixtures,
                      leave_out=[VLLM_PATHS["vllm/kv_connector/mooncake/mooncake_connector.py"]])
            result = action_runner.run_workflow_job(
                yaml_subset.load(local), "conform", entry, bench.workspace, bench.env, [CHECKOUT, UPLOAD_SARIF],
                {action[0]: source_dir}, {"pull_request": {"base": {"sha": "0" * 40}}}, bench.runner_temp())
            passes, functions = expected[entry["profile"]]
            expect(result.success == passes, entry["profile"] + ": the job's result", result.log())
            record, compare = [s for s in result.steps if s.get("uses") == action[0]]
            base_has_files = entry["profile"] != "vllm-mooncake"
            expect(record["outcome"] == ("success" if base_has_files else "failure"),
                   "the base branch's outcomes are recorded where it has the files", record)
            expect(os.path.basename(compare["with"]["baseline"]) == ("base-outcomes.txt" if base_has_files else ""),
                   "the baseline is used where it was recorded", compare["with"])
            run = uploaded_sarif(compare["action"], bench.workspace, entry["profile"])
            expect(result.summary.count("### tpcheck conform") == 1 and
                   ("compared with the baseline" in result.summary) == base_has_files,
                   "the job's page shows the pull request's run alone", result.summary)
            expect(sorted({r["properties"]["function"] for r in run["results"]}) == functions,
                   entry["profile"] + ": the results are the pull request's changes", run["results"])
            expect(any(c.startswith("apt-get install -y -qq python3-numpy") for c in bench.commands()),
                   "numpy is installed by the workflow", bench.commands())


if __name__ == "__main__":
    scenarios = {name: globals()[name] for name in
                 ("faulty", "clean", "no_fail", "load_error", "deb_url", "build", "baseline", "example")}
    sys.exit(main(scenarios, __doc__))
