"""What the action and pre-commit tests share (standard library only): the
packaged tpcheck unpacked, a vLLM-shaped tree of the conform fixtures, and
stand-ins for the commands that would change the machine or reach the
network (sudo, apt-get, cmake's build)."""
import glob
import os
import shutil
import stat
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "packaging"))
from package_support import Failed, expect, main, run  # noqa: E402,F401 - shared with the packaging tests

KV = "vllm/distributed/kv_transfer/kv_connector"
# Where each conform fixture sits in vLLM's tree.
VLLM_PATHS = {
    "moriio_correct.py": KV + "/v1/moriio/moriio_connector.py",
    "vllm/kv_connector/utils.py": KV + "/utils.py",
    "vllm/kv_connector/nixl/tp_mapping.py": KV + "/v1/nixl/tp_mapping.py",
    "vllm/kv_connector/mooncake/mooncake_connector.py": KV + "/v1/mooncake/mooncake_connector.py",
}
MORIIO_COMMON = KV + "/v1/moriio/moriio_common.py"
# The upload step the action may use, and the workflow's checkout.
UPLOAD_SARIF = "github/codeql-action/upload-sarif@v3"
CHECKOUT = "actions/checkout@v4"


def fixtures_module(fixtures):
    sys.path.insert(0, fixtures)
    import faults  # noqa: E402 - the fixtures directory is only known at run time
    return faults


def vllm_tree(root, fixtures, fault=None, leave_out=()):
    """The fixtures at their vLLM paths under root, one file replaced by its
    faulty version when `fault` is given; paths in `leave_out` are not made."""
    faults = fixtures_module(fixtures)
    faulty_base = faults.correct_file(fault) if fault else None
    made = os.path.join(root, ".faulty")
    for fixture, path in VLLM_PATHS.items():
        if path in leave_out:
            continue
        source = os.path.join(fixtures, fixture)
        if fixture == faulty_base:
            source = faults.materialize(fixtures, fault, made)
        os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
        shutil.copy(source, os.path.join(root, path))
    if MORIIO_COMMON not in leave_out:
        with open(os.path.join(root, MORIIO_COMMON), "w") as f:
            f.write("# This fixture keeps every MoRIIO function in moriio_connector.py.\n")
    shutil.rmtree(made, ignore_errors=True)


def unpack_deb(deb_dir, destination):
    """The .deb the package test built, unpacked; its usr/bin directory."""
    debs = glob.glob(os.path.join(deb_dir, "tpcheck_*.deb"))
    expect(len(debs) == 1, "one .deb in " + deb_dir + " (made by the package.deb test)", debs)
    p = run(["dpkg-deb", "-x", debs[0], destination])
    expect(p.returncode == 0, "dpkg-deb -x", p.stderr)
    return debs[0], os.path.join(destination, "usr", "bin")


def executable(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def stand_ins(directory, log, unpack_root, built_root):
    """sudo that runs its command; apt-get that logs its arguments and, for
    `install FILE.deb`, unpacks the package into unpack_root (whose usr/bin
    the test puts on PATH) instead of installing it; cmake that logs, and for
    `--install B --prefix P` copies built_root/usr/ (an unpacked package: the
    build that package was made from) to P."""
    os.makedirs(directory, exist_ok=True)
    executable(os.path.join(directory, "sudo"), '#!/bin/sh\necho "sudo $*" >> "%s"\nexec "$@"\n' % log)
    executable(os.path.join(directory, "apt-get"), """#!/bin/sh
echo "apt-get $*" >> "%s"
for a in "$@"; do
  case "$a" in *.deb) dpkg-deb -x "$a" "%s" || exit 100 ;; esac
done
""" % (log, unpack_root))
    executable(os.path.join(directory, "cmake"), """#!/bin/sh
echo "cmake $*" >> "%s"
if [ "$1" = --install ]; then mkdir -p "$4" && cp -R "%s/usr/." "$4/"; fi
""" % (log, built_root))


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()
