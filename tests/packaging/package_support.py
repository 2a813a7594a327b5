"""What the packaging and CI tests share (standard library only): installing
the build into a prefix, the files an installation must hold, running a
command with the source and build trees hidden, and comparing reports without
their timings."""
import json
import os
import re
import subprocess
import sys

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The manual: every page of the source tree's docs/, under share/doc/tpcheck/docs/.
MANUAL = [os.path.join("share/doc/tpcheck", os.path.relpath(os.path.join(here, name), SOURCE_DIR))
          for here, _, names in os.walk(os.path.join(SOURCE_DIR, "docs")) for name in names if name.endswith(".md")]
# Every file `cmake --install` puts under the prefix, and nothing else.
INSTALLED_FILES = sorted([
    "bin/tpcheck",
    "bin/tpcheck-pre-commit",
    "share/tpcheck/conform/child.py",
    "share/tpcheck/conform/regression_calls.txt",
    "share/doc/tpcheck/LICENSE",
    "share/doc/tpcheck/README.md",
    "share/doc/tpcheck/CHANGELOG.md",
] + MANUAL)
EXECUTABLES = {"bin/tpcheck", "bin/tpcheck-pre-commit"}


class Failed(Exception):
    pass


def expect(condition, what, *details):
    if not condition:
        raise Failed(what + "".join("\n    " + str(d)[:3000] for d in details))


def run(command, timeout=300, **kwargs):
    try:
        return subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout,
                              **kwargs)
    except subprocess.TimeoutExpired:
        raise Failed("%s ran for more than %d s" % (" ".join(command), timeout))


def install(build_dir, prefix):
    p = run(["cmake", "--install", build_dir, "--prefix", prefix])
    expect(p.returncode == 0, "cmake --install failed", p.stdout, p.stderr)


def depends_names(field):
    """Package names of a Depends-style field, in order, once each
    (alternatives included; versions and architecture qualifiers dropped)."""
    names = []
    for clause in field.split(","):
        for alternative in clause.split("|"):
            name = alternative.strip().split(" ")[0].split(":")[0]
            if name and name not in names:
                names.append(name)
    return names


def files_under(root):
    found = []
    for here, _, names in os.walk(root):
        found += [os.path.relpath(os.path.join(here, n), root) for n in names]
    return sorted(found)


def check_layout(prefix):
    """The installed files are exactly INSTALLED_FILES, programs executable."""
    expect(files_under(prefix) == INSTALLED_FILES, "the installed files", files_under(prefix), INSTALLED_FILES)
    for name in EXECUTABLES:
        expect(os.access(os.path.join(prefix, name), os.X_OK), name + " is executable")


def hidden(command, trees, env):
    """`command` in a new mount namespace where each of `trees` is an empty
    tmpfs, so nothing in them can be read; (command, how) where `how` says
    whether they were hidden. Needs root (CAP_SYS_ADMIN); without it the
    command runs as it is, and `how` says so."""
    probe = run(["unshare", "--mount", "--propagation", "private", "true"]) if os.path.exists("/usr/bin/unshare") \
        else None
    if probe is None or probe.returncode != 0:
        return command, "not hidden (unshare --mount is not permitted here): run from another directory only"
    # Deepest first: a build tree inside the source tree is hidden before its parent.
    ordered = sorted(set(trees), key=lambda t: -t.count(os.sep))
    mounts = " && ".join("mount -t tmpfs tpcheck-hidden %s" % quote(t) for t in ordered)
    checks = " && ".join("test -z \"$(ls -A %s 2>/dev/null)\"" % quote(t) for t in ordered)
    script = "%s && %s && exec \"$@\"" % (mounts, checks)
    return (["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "hidden"] + command,
            "hidden: %s are empty tmpfs mounts in the command's mount namespace" % ", ".join(ordered))


def quote(text):
    return "'" + text.replace("'", "'\\''") + "'"


def without_timing_text(report):
    return re.sub(r"[0-9.]+ s, [0-9]+ cases/s", "T s, R cases/s", report)


def without_timing_json(report):
    data = json.loads(report)
    data.pop("seconds")
    data.pop("cases_per_second")
    data.pop("cxx_build", None)  # how long building the C++ child took, or that it was cached
    for function in data.get("functions", []):
        function.pop("seconds", None)  # each checked function's own time
    return data


def main(scenarios, usage):
    """Runs scenarios[argv[1]](*argv[2:]); prints ok or FAIL."""
    if len(sys.argv) < 2 or sys.argv[1] not in scenarios:
        sys.exit(usage)
    try:
        scenarios[sys.argv[1]](*sys.argv[2:])
    except Failed as e:
        print("FAIL %s: %s" % (sys.argv[1], e))
        return 1
    print("ok " + sys.argv[1])
    return 0
