#!/usr/bin/env python3
"""CTest driver: the installed tpcheck works on its own.

usage: install_test.py relocated SOURCE_DIR BUILD_DIR VERSION

Installs the build into a temporary prefix (`cmake --install`), checks the
files installed, moves the prefix elsewhere, and runs the moved tpcheck with
the source and build trees hidden (empty tmpfs mounts in its own mount
namespace, when permitted), from another directory, with a bare environment:
`--version` prints VERSION, `conform` on a faulty fixture gives the same
report, text and JSON (timings aside), and the same exit status as the
build tree's tpcheck; `--print-child` is the installed share/ copy; and the
installed tpcheck-pre-commit finds the tpcheck beside it.
"""
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from package_support import (check_layout, expect, hidden, install, main, run, without_timing_json,  # noqa: E402
                             without_timing_text)

PYTHON = "/usr/bin/python3"  # the same interpreter for both runs, and on the bare PATH


def relocated(source_dir, build_dir, version):
    source_dir, build_dir = os.path.realpath(source_dir), os.path.realpath(build_dir)
    with tempfile.TemporaryDirectory(prefix="tpcheck-install-") as top:
        top = os.path.realpath(top)
        for tree in (source_dir, build_dir):
            expect(not (top + os.sep).startswith(tree + os.sep), "the temporary directory is outside " + tree)
        first = os.path.join(top, "first")
        install(build_dir, first)
        check_layout(first)
        prefix = os.path.join(top, "moved", "elsewhere")
        os.makedirs(os.path.dirname(prefix))
        shutil.move(first, prefix)
        work = os.path.join(top, "work", "vllm", "kv_connector", "moriio")
        os.makedirs(work)
        sys.path.insert(0, os.path.join(source_dir, "tests", "conform", "fixtures"))
        import faults  # noqa: E402 - in the source tree, read before it is hidden
        fixture = shutil.copy(faults.materialize(os.path.dirname(faults.__file__), "moriio_upstream_ack_count", top),
                              os.path.join(work, "moriio_connector.py"))
        conform = ["conform", "--profile", "vllm-moriio", "--max-tp", "8", "--python", PYTHON,
                   os.path.relpath(fixture, os.path.join(top, "work"))]

        def build_tree(args):
            return run([os.path.join(build_dir, "tpcheck")] + args, cwd=os.path.join(top, "work"))

        env = {"PATH": "/usr/bin:/bin", "HOME": top, "LANG": "C.UTF-8"}
        how = None

        def installed(args, program="tpcheck"):
            nonlocal how
            command, how = hidden([os.path.join(prefix, "bin", program)] + args, [source_dir, build_dir], env)
            return run(command, cwd=os.path.join(top, "work"), env=env)

        p = installed(["--version"])
        expect(p.returncode == 0 and p.stdout == "tpcheck %s\n" % version, "--version", p.stdout, p.stderr)
        for report in ([], ["--json"]):
            reference, moved = build_tree(conform + report), installed(conform + report)
            expect(reference.returncode == 1 and moved.returncode == 1, "both find the fault (exit 1)",
                   reference.returncode, moved.returncode, moved.stderr)
            same = without_timing_json if report else without_timing_text
            expect(same(reference.stdout) == same(moved.stdout), "the same report from the installed tpcheck",
                   reference.stdout, moved.stdout)
        expect("get_moriio_expected_ack_count" in moved.stdout, "the report names the faulty function", moved.stdout)
        p = installed(["conform", "--print-child"])
        with open(os.path.join(prefix, "share", "tpcheck", "conform", "child.py"), encoding="utf-8") as f:
            expect(p.returncode == 0 and p.stdout == f.read() and "def main" in p.stdout,
                   "share/tpcheck/conform/child.py is the program the binary runs", p.stderr)
        # The hook's entry, with no tpcheck on PATH: it runs the one beside it.
        p = installed([os.path.relpath(fixture, os.path.join(top, "work"))], program="tpcheck-pre-commit")
        expect(p.returncode == 1 and "tpcheck-pre-commit: conform --profile vllm-moriio" in p.stdout and
               "get_moriio_expected_ack_count" in p.stdout, "tpcheck-pre-commit runs the tpcheck beside it",
               p.stdout, p.stderr)
        print("trees " + how)


if __name__ == "__main__":
    sys.exit(main({"relocated": relocated}, __doc__))
