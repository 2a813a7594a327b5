#!/usr/bin/env python3
"""CTest driver: the .deb (built by package.deb) installs, runs and goes.

usage: deb_install_test.py installs OUT_DIR VERSION

Nothing on this machine is changed: everything happens in scratch roots and
scratch package databases.
- A base Debian 12: apt-get resolves `apt-get install ./tpcheck_*.deb` against
  a dpkg database that holds only the Essential and required packages of this
  machine (and what they depend on), from the archive indices apt already has
  (--simulate: nothing fetched); every package it would add comes from
  Debian 12 or is tpcheck itself, and the Depends that a base system lacks
  (python3) are among them. Skipped, and said, without apt indices.
- dpkg itself installs it into a scratch root (dpkg --root): with an empty
  database it refuses, naming every Depends package; with the machine's own
  records of exactly those packages it unpacks and configures it ("install ok
  installed"), its files pass `dpkg -V`, the installed tpcheck runs from the
  root and prints VERSION, --print-child is the installed share/ copy; then
  `dpkg -r` removes it and leaves no file.
Needs root (dpkg --root writes files owned by root): exit 77 otherwise.
"""
import glob
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from package_support import INSTALLED_FILES, depends_names, expect, files_under, main, run  # noqa: E402

SKIPPED = 77
HOST_STATUS = "/var/lib/dpkg/status"


def the_deb(out_dir, version):
    debs = glob.glob(os.path.join(out_dir, "tpcheck_%s-*.deb" % version))
    expect(len(debs) == 1, "one .deb in " + out_dir + " (made by the package.deb test)", debs)
    return debs[0]


def field(paragraph, name):
    match = re.search(r"^%s: (.*(?:\n .*)*)" % re.escape(name), paragraph, re.M)
    return match.group(1).replace("\n", " ") if match else ""


def installed_paragraphs():
    """{package: [its dpkg status paragraphs]} of what this machine has installed."""
    with open(HOST_STATUS, encoding="utf-8") as f:
        paragraphs = [p for p in f.read().split("\n\n") if p.strip()]
    found = {}
    for p in paragraphs:
        if re.search(r"^Status: install ok installed$", p, re.M):
            found.setdefault(field(p, "Package"), []).append(p)
    return found


def base_system(installed):
    """The packages of a base Debian: Essential or Priority required, and
    every installed package they depend on (an alternative or a provider
    already chosen counts), as this machine has them."""
    providers = {}
    for name, paragraphs in installed.items():
        for p in paragraphs:
            for provided in depends_names(field(p, "Provides")):
                providers.setdefault(provided, []).append(name)
    chosen = {name for name, paragraphs in installed.items()
              if any(re.search(r"^(Essential: yes|Priority: required)$", p, re.M) for p in paragraphs)}
    pending = list(chosen)
    while pending:
        for p in installed[pending.pop()]:
            for relation in ("Pre-Depends", "Depends"):
                for clause in filter(str.strip, field(p, relation).split(",")):
                    alternatives = depends_names(clause)
                    if any(a in chosen or set(providers.get(a, [])) & chosen for a in alternatives):
                        continue
                    for a in alternatives:
                        candidates = [a] if a in installed else providers.get(a, [])
                        if candidates:
                            chosen.add(candidates[0])
                            pending.append(candidates[0])
                            break
    return chosen


def scratch_database(admin, installed, packages):
    """A dpkg database at `admin` recording `packages` as installed (this
    machine's records of them, with empty file lists)."""
    for sub in ("info", "updates", "triggers"):
        os.makedirs(os.path.join(admin, sub), exist_ok=True)
    open(os.path.join(admin, "available"), "w").close()
    paragraphs = [p for name in sorted(packages) for p in installed[name]]
    with open(os.path.join(admin, "status"), "w", encoding="utf-8") as f:
        f.write("\n\n".join(paragraphs) + ("\n" if paragraphs else ""))
    for p in paragraphs:
        name = field(p, "Package")
        if field(p, "Multi-Arch") == "same":
            name += ":" + field(p, "Architecture")
        open(os.path.join(admin, "info", name + ".list"), "w").close()


def base_debian_resolves(deb, installed, top):
    if not glob.glob("/var/lib/apt/lists/*_Packages*"):
        print("no apt indices (/var/lib/apt/lists): the base Debian 12 resolution was not checked")
        return
    base = base_system(installed)
    admin = os.path.join(top, "base-debian")
    scratch_database(admin, installed, base)
    depends = depends_names(run(["dpkg-deb", "-f", deb, "Depends"]).stdout)
    p = run(["apt-get", "-o", "Dir::State::status=" + os.path.join(admin, "status"), "-o", "Debug::NoLocking=1",
             "install", "--simulate", "--no-install-recommends", os.path.abspath(deb)])
    expect(p.returncode == 0, "apt-get resolves the package on a base Debian", p.stdout, p.stderr)
    added = re.findall(r"^Inst (\S+) \(\S+ ([^\[]+)\[", p.stdout, re.M)
    names = [name for name, _ in added]
    expect(names and names[-1] == "tpcheck", "tpcheck installed last, after its dependencies", p.stdout)
    for name, origin in added[:-1]:
        expect(re.match(r"Debian(-Security)?:12", origin), name + " comes from Debian 12", origin)
    missing = sorted(d for d in depends if d not in base)
    expect("python3" in missing and set(missing) <= set(names), "what a base system lacks is added", missing, names)
    print("base Debian 12 (%d packages): apt-get would add %s" % (len(base), " ".join(names)))


def dpkg(root, *args):
    return run(["dpkg", "--root", root, "--log", "/dev/null"] + list(args))


def dpkg_installs(deb, version, installed, top):
    depends = depends_names(run(["dpkg-deb", "-f", deb, "Depends"]).stdout)
    expect(depends, "the package declares its dependencies")
    # An empty system: dpkg unpacks it but refuses to configure it.
    empty = os.path.join(top, "empty")
    scratch_database(os.path.join(empty, "var", "lib", "dpkg"), installed, [])
    p = dpkg(empty, "-i", deb)
    expect(p.returncode != 0 and "dependency problems" in p.stderr, "refused where nothing is installed", p.stderr)
    for name in depends:
        expect(re.search(r"tpcheck depends on %s\b" % re.escape(name), p.stderr), "the refusal names " + name,
               p.stderr)
    # A system with exactly the dependencies.
    root = os.path.join(top, "root")
    expect(all(name in installed for name in depends), "this machine has every dependency", depends)
    scratch_database(os.path.join(root, "var", "lib", "dpkg"), installed, depends)
    p = dpkg(root, "-i", deb)
    expect(p.returncode == 0 and "Setting up tpcheck (%s-" % version in p.stdout, "dpkg installs it", p.stdout,
           p.stderr)
    status = run(["dpkg-query", "--root", root, "-W", "-f", "${Status} ${Version}", "tpcheck"])
    expect(status.stdout.startswith("install ok installed %s-" % version), "recorded as installed", status.stdout)
    listed = sorted(line[len("/usr/"):] for line in dpkg(root, "-L", "tpcheck").stdout.splitlines()
                    if os.path.isfile(os.path.join(root, line.lstrip("/"))))
    expect(listed == INSTALLED_FILES, "its files, as dpkg lists them", listed)
    p = dpkg(root, "-V", "tpcheck")
    expect(p.returncode == 0 and p.stdout == "", "dpkg -V: every file as packaged", p.stdout, p.stderr)
    tpcheck = os.path.join(root, "usr", "bin", "tpcheck")
    p = run([tpcheck, "--version"], cwd=top)
    expect(p.stdout == "tpcheck %s\n" % version, "the installed tpcheck runs", p.stdout, p.stderr)
    p = run([tpcheck, "conform", "--print-child"], cwd=top)
    with open(os.path.join(root, "usr", "share", "tpcheck", "conform", "child.py"), encoding="utf-8") as f:
        expect(p.returncode == 0 and p.stdout == f.read(), "the installed share/ copy is the child it runs",
               p.stderr)
    p = dpkg(root, "-r", "tpcheck")
    expect(p.returncode == 0, "dpkg removes it", p.stdout, p.stderr)
    left = files_under(os.path.join(root, "usr")) if os.path.isdir(os.path.join(root, "usr")) else []
    expect(left == [], "nothing left behind", left)
    status = run(["dpkg-query", "--root", root, "-W", "-f", "${Status}", "tpcheck"])
    expect(not status.stdout.startswith("install ok installed"), "no longer installed", status.stdout)
    print("dpkg --root: refused without %s; installed with them, verified, ran, removed" % ", ".join(sorted(depends)))


def installs(out_dir, version):
    if os.geteuid() != 0:
        print("not root: dpkg --root cannot write root-owned files; skipped")
        sys.exit(SKIPPED)
    deb = the_deb(out_dir, version)
    installed = installed_paragraphs()
    with tempfile.TemporaryDirectory(prefix="tpcheck-deb-install-") as top:
        base_debian_resolves(deb, installed, top)
        dpkg_installs(deb, version, installed, top)


if __name__ == "__main__":
    sys.exit(main({"installs": installs}, __doc__))
