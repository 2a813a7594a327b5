#!/usr/bin/env python3
"""CTest driver: the pre-commit hook (.pre-commit-hooks.yaml and its entry,
tpcheck-pre-commit), in a vLLM-shaped git repository with staged changes.

usage: pre_commit_test.py SCENARIO SOURCE_DIR FIXTURE_DIR DEB_DIR

emulated    does what pre-commit does for a `language: system` hook: the
            staged files (git diff --staged), filtered by the hook's `files`
            and `types`, passed after `entry` from the repository's root;
            checks which profile and companion files each change gets, and
            the verdict
pre_commit  the real pre-commit (Debian's package), with the hook listed in
            the repository's .pre-commit-config.yaml as vLLM would list it;
            skipped (exit 77) where pre-commit is not installed

tpcheck and tpcheck-pre-commit are the .deb's (package.deb), unpacked onto
PATH. No network: the hook repository is a local git repository.
"""
import os
import re
import shlex
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import yaml_subset  # noqa: E402
from ci_support import KV, VLLM_PATHS, expect, main, read, run, unpack_deb, vllm_tree  # noqa: E402

MORIIO = KV + "/v1/moriio/moriio_connector.py"
MORIIO_COMMON = KV + "/v1/moriio/moriio_common.py"
UTILS = KV + "/utils.py"
NIXL = KV + "/v1/nixl/tp_mapping.py"
MOONCAKE = KV + "/v1/mooncake/mooncake_connector.py"
SKIPPED = 77


def the_hook(source_dir):
    hooks = yaml_subset.load_file(os.path.join(source_dir, ".pre-commit-hooks.yaml"))
    expect(len(hooks) == 1 and hooks[0]["id"] == "tpcheck-conform", "one hook, tpcheck-conform", hooks)
    hook = hooks[0]
    expect(hook["language"] == "system" and hook["entry"] == "tpcheck-pre-commit" and
           hook.get("pass_filenames", "true") == "true" and hook["types"] == ["python"], "how it is run", hook)
    return hook


class Repository:
    """A vLLM-shaped git repository with everything committed."""

    def __init__(self, top, fixtures, package_bin, extra_files=()):
        self.root = os.path.join(top, "vllm-repo")
        self.fixtures = fixtures
        vllm_tree(self.root, fixtures)
        for path, text in [("vllm/other/utils.py", "def helper():\n    return 1\n"),
                           (KV + "/v1/nixl/utils.py", "NIXL_CONNECTOR_VERSION = 2\n"),
                           ("README.md", "vLLM-shaped fixture\n")] + list(extra_files):
            self.write(path, text)
        self.env = {"PATH": os.pathsep.join([package_bin, "/usr/bin", "/bin"]), "HOME": top, "LANG": "C.UTF-8",
                    "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
                    "GIT_COMMITTER_EMAIL": "t@example.invalid"}
        self.git("init", "-q", "-b", "main")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", "base")

    def write(self, path, text):
        os.makedirs(os.path.dirname(os.path.join(self.root, path)) or self.root, exist_ok=True)
        with open(os.path.join(self.root, path), "w") as f:
            f.write(text)

    def git(self, *args):
        p = run(["git"] + list(args), cwd=self.root, env=self.env)
        expect(p.returncode == 0, "git " + " ".join(args), p.stderr)
        return p.stdout

    def stage_fault(self, fault):
        """The fault's file at its vLLM path, staged."""
        sys.path.insert(0, self.fixtures)
        import faults  # noqa: E402 - the fixtures directory is only known at run time
        made = faults.materialize(self.fixtures, fault, os.path.join(self.root, "..", "made"))
        shutil.copy(made, os.path.join(self.root, VLLM_PATHS[faults.correct_file(fault)]))
        self.git("add", "-A")

    def stage_edit(self, *paths):
        for path in paths:
            with open(os.path.join(self.root, path), "a") as f:
                f.write("# an edit that changes no behaviour\n")
        self.git("add", "-A")


def selected(hook, paths, root):
    """pre-commit's selection: `files` (re.search), minus `exclude`, of the
    types asked for (python: a .py name, or a python shebang)."""
    chosen = []
    for path in paths:
        if not re.search(hook["files"], path) or (hook.get("exclude") and re.search(hook["exclude"], path)):
            continue
        with open(os.path.join(root, path), "rb") as f:
            shebang = f.readline()
        if path.endswith(".py") or (shebang.startswith(b"#!") and b"python" in shebang):
            chosen.append(path)
    return chosen


def run_like_pre_commit(hook, repo):
    """(files passed, process) for the staged files; process None: skipped."""
    staged = [p for p in repo.git("diff", "--staged", "--name-only", "--no-ext-diff", "-z",
                                  "--diff-filter=ACMRTUXB").split("\0") if p]
    files = selected(hook, staged, repo.root)
    if not files:
        return files, None
    command = shlex.split(hook["entry"]) + list(hook.get("args", [])) + files
    return files, run(command, cwd=repo.root, env=repo.env)


def conform_lines(output):
    return [line[len("tpcheck-pre-commit: "):] for line in output.splitlines()
            if line.startswith("tpcheck-pre-commit: conform ")]


def emulated(source_dir, fixtures, deb_dir):
    hook = the_hook(source_dir)
    paths = {MORIIO: True, MORIIO_COMMON: True, NIXL: True, MOONCAKE: True, UTILS: True,
             KV + "/v1/moriio/moriio_engine.py": True, KV + "/v1/nixl/utils.py": False,
             "vllm/other/utils.py": False, KV + "/v1/mooncake/mooncake_store_connector.py": False,
             "tests/v1/kv_connector/unit/test_moriio_connector.py": False, "vllm/utils.py": False}
    matched = {p: bool(re.search(hook["files"], p)) for p in paths}
    expect(matched == paths, "the hook's files pattern selects the connector files", matched)
    with tempfile.TemporaryDirectory() as top:
        _, package_bin = unpack_deb(deb_dir, os.path.join(top, "package"))
        cases = [
            # (what is staged, the files the hook gets, the conform runs, exit status, a report line)
            (lambda r: (r.stage_fault("moriio_upstream_ack_count"), r.stage_edit("README.md")), [MORIIO],
             ["conform --profile vllm-moriio %s %s" % (MORIIO, MORIIO_COMMON)], 1,
             "get_moriio_expected_ack_count ("),
            (lambda r: r.stage_edit(MORIIO, MORIIO_COMMON), [MORIIO, MORIIO_COMMON],
             ["conform --profile vllm-moriio %s %s" % (MORIIO, MORIIO_COMMON)], 0, "0 deviations in 0 functions"),
            (lambda r: r.stage_fault("nixl_replica_first_holder"), [NIXL],
             ["conform --profile vllm-nixl %s %s" % (UTILS, NIXL)], 1, "compute_tp_mapping ("),
            (lambda r: r.stage_fault("mooncake_planner_without_heads"), [MOONCAKE],
             ["conform --profile vllm-mooncake %s %s" % (MOONCAKE, UTILS)], 1, "_compute_sender_transfer_plan ("),
            (lambda r: r.stage_edit(UTILS), [UTILS],
             ["conform --profile vllm-nixl %s %s" % (UTILS, NIXL),
              "conform --profile vllm-mooncake %s %s" % (MOONCAKE, UTILS)], 0, "TransferTopology.tp_ratio ("),
            (lambda r: r.stage_edit("vllm/other/utils.py", "README.md", KV + "/v1/nixl/utils.py"), [], [], None, ""),
        ]
        for index, (stage, files, runs, status, line) in enumerate(cases):
            case_top = os.path.join(top, "case%d" % index)
            os.makedirs(case_top)
            repo = Repository(case_top, fixtures, package_bin)
            stage(repo)
            passed, p = run_like_pre_commit(hook, repo)
            expect(passed == sorted(files), "case %d: the files the hook gets (git's order)" % index, passed, files)
            if status is None:
                expect(p is None, "case %d: nothing to check, the hook is skipped" % index)
                # Given such a file anyway, the entry ignores it.
                q = run(["tpcheck-pre-commit", "vllm/other/utils.py"], cwd=repo.root, env=repo.env)
                expect(q.returncode == 0 and q.stdout == "", "the entry ignores other files", q.stdout, q.stderr)
                continue
            expect(conform_lines(p.stdout) == runs, "case %d: profile and companion files" % index,
                   conform_lines(p.stdout), runs)
            expect(p.returncode == status, "case %d: exit %d, expected %d" % (index, p.returncode, status),
                   p.stdout, p.stderr)
            expect(line in p.stdout, "case %d: the report" % index, p.stdout)


def pre_commit(source_dir, fixtures, deb_dir):
    program = shutil.which("pre-commit", path="/usr/bin:/bin:/usr/local/bin")
    if program is None:
        print("pre-commit is not installed (Debian package pre-commit): skipped")
        sys.exit(SKIPPED)
    with tempfile.TemporaryDirectory() as top:
        _, package_bin = unpack_deb(deb_dir, os.path.join(top, "package"))
        # The hook repository: tpcheck's hook definition, committed.
        hooks = Repository.__new__(Repository)
        hooks.root = os.path.join(top, "tpcheck-hooks")
        os.makedirs(hooks.root)
        shutil.copy(os.path.join(source_dir, ".pre-commit-hooks.yaml"), hooks.root)
        hooks.env = {"PATH": "/usr/bin:/bin", "HOME": top, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e.invalid",
                     "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e.invalid"}
        hooks.git("init", "-q", "-b", "main")
        hooks.git("add", "-A")
        hooks.git("commit", "-q", "-m", "hooks")
        rev = hooks.git("rev-parse", "HEAD").strip()
        config = ("repos:\n  - repo: %s\n    rev: %s\n    hooks:\n      - id: tpcheck-conform\n"
                  "        args: [--python, /usr/bin/python3]\n" % (hooks.root, rev))
        repo = Repository(top, fixtures, package_bin, extra_files=[(".pre-commit-config.yaml", config)])
        repo.env["PRE_COMMIT_HOME"] = os.path.join(top, "pre-commit-cache")
        name = "tpcheck conform (KV connector TP rank mapping)"

        def commit_hook():
            return run([program, "run"], cwd=repo.root, env=repo.env, timeout=300)

        repo.stage_edit("README.md")
        p = commit_hook()
        expect(p.returncode == 0 and re.search(re.escape(name) + r"\.*\(no files to check\)Skipped", p.stdout),
               "no connector file staged: skipped", p.stdout, p.stderr)
        repo.stage_edit(UTILS)
        p = commit_hook()
        expect(p.returncode == 0 and re.search(re.escape(name) + r"\.*Passed", p.stdout),
               "a harmless edit of utils.py passes", p.stdout, p.stderr)
        repo.git("commit", "-q", "-m", "edit")
        repo.stage_fault("moriio_upstream_ack_count")
        p = commit_hook()
        expect(p.returncode == 1 and re.search(re.escape(name) + r"\.*Failed", p.stdout) and
               "conform --profile vllm-moriio --python /usr/bin/python3 %s %s" % (MORIIO, MORIIO_COMMON) in p.stdout
               and "get_moriio_expected_ack_count (" in p.stdout, "a faulty MoRIIO change fails the commit",
               p.stdout, p.stderr)
        print(read(os.path.join(repo.root, ".pre-commit-config.yaml")), end="")


if __name__ == "__main__":
    sys.exit(main({"emulated": emulated, "pre_commit": pre_commit}, __doc__))
