#!/usr/bin/env python3
"""CTest driver: the Debian package.

usage: deb_test.py package SOURCE_DIR BUILD_DIR VERSION OUT_DIR

Builds the .deb with CPack into OUT_DIR (the CI tests install it from
there), then checks it:
- its control fields (dpkg-deb -f): name, version, architecture, maintainer,
  section, description; Depends names the Debian package of every shared
  library the binary loads (ldd, then dpkg -S), and python3 (>= 3.9);
  Recommends python3-numpy, libclang1-14 and a C++ compiler, Suggests
  clang-14 and libclang-rt-14-dev (profile trtllm and its --fuzz);
- its contents (dpkg-deb -c): exactly the installed files under /usr, owned
  by root, programs executable;
- extracted (dpkg-deb -x), its tpcheck prints VERSION and gives the build
  tree's conform report on a faulty fixture.
Installing it (apt-get on a base Debian 12, dpkg into a scratch root) is
deb_install_test.py's part.
"""
import glob
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from package_support import (EXECUTABLES, INSTALLED_FILES, depends_names, expect, files_under, main,  # noqa: E402
                             run, without_timing_json)


def library_packages(binary):
    """The Debian packages that own the shared libraries `binary` loads."""
    p = run(["ldd", binary])
    expect(p.returncode == 0, "ldd " + binary, p.stderr)
    packages = set()
    for line in p.stdout.splitlines():
        match = re.search(r"(/\S+)", line.split("=>")[-1])
        if not match:
            continue  # linux-vdso: the kernel's
        path = match.group(1)
        candidates = [path, os.path.realpath(path)]
        candidates += ["/usr" + c for c in list(candidates) if not c.startswith("/usr/")]
        owner = None
        for candidate in candidates:
            q = run(["dpkg", "-S", candidate])
            if q.returncode == 0:
                owner = q.stdout.split(":")[0].strip()
                break
        expect(owner is not None, "no Debian package owns " + path)
        packages.add(owner)
    return packages


def package(source_dir, build_dir, version, out_dir):
    shutil.rmtree(out_dir, ignore_errors=True)
    p = run(["cpack", "--config", os.path.join(build_dir, "CPackConfig.cmake"), "-G", "DEB", "-B", out_dir],
            cwd=build_dir)
    expect(p.returncode == 0, "cpack", p.stdout, p.stderr)
    arch = run(["dpkg", "--print-architecture"]).stdout.strip()
    debs = glob.glob(os.path.join(out_dir, "*.deb"))
    expect([os.path.basename(d) for d in debs] == ["tpcheck_%s-1_%s.deb" % (version, arch)], "one .deb, named "
           "tpcheck_VERSION-1_ARCH.deb", debs)
    deb = debs[0]

    fields = {}
    for name in ("Package", "Version", "Architecture", "Maintainer", "Section", "Description", "Depends",
                 "Recommends", "Suggests"):
        fields[name] = run(["dpkg-deb", "-f", deb, name]).stdout.strip()
    expect(fields["Package"] == "tpcheck" and fields["Version"] == version + "-1" and fields["Architecture"] == arch,
           "name, version, architecture", fields)
    expect(re.fullmatch(r".+ <[^@ ]+@[^@ ]+>", fields["Maintainer"]) and fields["Section"] == "devel",
           "maintainer and section", fields)
    expect(fields["Description"].startswith("checks the tensor-parallel rank mapping") and
           "\n" in fields["Description"], "a summary line and a long description", fields["Description"])
    depends = set(depends_names(fields["Depends"]))
    libraries = library_packages(os.path.join(build_dir, "tpcheck"))
    expect({"libc6", "libstdc++6"} <= libraries, "ldd found the C and C++ runtimes", libraries)
    expect(libraries <= depends, "Depends has the package of every library tpcheck loads", libraries, depends)
    expect(re.search(r"(^|, )python3 \(>= 3\.9\)(,|$)", fields["Depends"]), "Depends has python3 (>= 3.9)",
           fields["Depends"])
    expect(fields["Recommends"] == "python3-numpy, libclang1-14, g++ | c++-compiler",
           "Recommends python3-numpy and what profile trtllm needs", fields["Recommends"])
    expect(fields["Suggests"] == "clang-14, libclang-rt-14-dev", "Suggests what --fuzz needs", fields["Suggests"])
    info = run(["dpkg-deb", "-I", deb])
    expect(info.returncode == 0 and "Package: tpcheck" in info.stdout, "dpkg-deb -I reads it", info.stderr)

    listing = run(["dpkg-deb", "-c", deb])
    expect(listing.returncode == 0, "dpkg-deb -c", listing.stderr)
    entries = {}
    for line in listing.stdout.splitlines():
        mode, owner, _size, _date, _time, path = line.split(None, 5)
        if not mode.startswith("d"):
            entries[path] = (mode, owner)
    expect(sorted(entries) == ["./usr/" + f for f in INSTALLED_FILES], "the package's files", sorted(entries))
    for path, (mode, owner) in entries.items():
        expect(owner == "root/root", "owned by root: " + path, owner)
        executable = path[len("./usr/"):] in EXECUTABLES
        expect(mode == ("-rwxr-xr-x" if executable else "-rw-r--r--"), "the mode of " + path, mode)

    with tempfile.TemporaryDirectory(prefix="tpcheck-deb-") as top:
        root = os.path.join(top, "root")
        p = run(["dpkg-deb", "-x", deb, root])
        expect(p.returncode == 0 and files_under(os.path.join(root, "usr")) == INSTALLED_FILES, "extracted",
               p.stderr)
        tpcheck = os.path.join(root, "usr", "bin", "tpcheck")
        p = run([tpcheck, "--version"])
        expect(p.stdout == "tpcheck %s\n" % version, "the packaged tpcheck's version", p.stdout, p.stderr)
        sys.path.insert(0, os.path.join(source_dir, "tests", "conform", "fixtures"))
        import faults  # noqa: E402 - the fixtures directory is only known at run time
        fixture = faults.materialize(os.path.dirname(faults.__file__), "nixl_consumer_count_one", top)
        conform = ["conform", "--profile", "vllm-nixl", "--max-tp", "8", "--json", fixture]
        reference, packaged = run([os.path.join(build_dir, "tpcheck")] + conform), run([tpcheck] + conform)
        expect(packaged.returncode == reference.returncode == 1 and
               without_timing_json(packaged.stdout) == without_timing_json(reference.stdout),
               "the packaged tpcheck's report is the build tree's", packaged.stdout, packaged.stderr)
        # Profile trtllm compiles from the sources the binary carries: the
        # packaged one reports what the build tree's does.
        cpp_fixtures = os.path.join(source_dir, "tests", "conform", "fixtures", "trtllm", "cpp")
        trtllm = ["conform", "--profile", "trtllm", "--max-tp", "4", "--json",
                  os.path.join(cpp_fixtures, "cacheSplitConcat.cu"), os.path.join(cpp_fixtures, "cacheFormatter.cpp")]
        reference, packaged = run([os.path.join(build_dir, "tpcheck")] + trtllm), run([tpcheck] + trtllm)
        if "cannot be checked on this machine" not in reference.stderr:
            expect(packaged.returncode == reference.returncode == 0 and
                   without_timing_json(packaged.stdout) == without_timing_json(reference.stdout),
                   "the packaged tpcheck's trtllm report is the build tree's", packaged.stdout, packaged.stderr)

    print("package: " + deb)


if __name__ == "__main__":
    sys.exit(main({"package": package}, __doc__))
