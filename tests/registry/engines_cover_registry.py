#!/usr/bin/env python3
"""Every registry entry runs in every engine, unless it excludes that engine
with a reason: the sweep, both RapidCheck instantiations, the fuzz targets (and
their committed corpus), the seeds and the benchmarks.

usage: engines_cover_registry.py BUILD_DIR CORPUS_DIR

The registry comes from `tpcheck verify --list --json`; each engine is asked
what it runs (its own listing), so an engine that stopped reading the registry,
or one that filters entries, fails here. Standard library only.
"""
import json
import subprocess
import sys
from pathlib import Path


def run(*command):
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True, timeout=600)
    return done.returncode, done.stdout + done.stderr


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    build, corpus = Path(sys.argv[1]), Path(sys.argv[2])
    status, out = run(build / "tpcheck", "verify", "--list", "--json")
    if status != 0:
        print(f"tpcheck verify --list failed:\n{out}", file=sys.stderr)
        return 2
    entries = json.loads(out)["invariants"]
    names = [e["name"] for e in entries]
    excluded = {e["name"]: e["excluded"] for e in entries}

    def runs_in(engine):
        return [n for n in names if engine not in excluded[n]]

    problems = []

    def expect(engine, found, what):
        for name in runs_in(engine):
            if name not in found:
                problems.append(f"{name}: not in {what}, and it does not exclude the engine '{engine}'")

    # The sweep: one result per entry, at a small bound.
    status, out = run(build / "tpcheck", "verify", "--max-tp", "8", "--max-heads", "16", "--json")
    swept = {e["name"] for e in json.loads(out.splitlines()[0])["invariants"]} if out.strip() else set()
    expect("sweep", swept, "tpcheck verify's results")

    # RapidCheck: one GoogleTest property per entry and integer type.
    status, out = run(build / "properties" / "rapidcheck" / "tpcheck_properties_rc", "--gtest_list_tests")
    listed, suite = set(), ""
    for line in out.splitlines():
        if not line.startswith(" "):
            suite = line.strip()
        elif suite.startswith(("Int64/", "CppInt/")):
            listed.add(suite.split("/")[0] + "/" + line.split()[0].split("/", 1)[1])
    expect("rapidcheck-int64", {n.split("/", 1)[1] for n in listed if n.startswith("Int64/")}, "the Int64 properties")
    expect("rapidcheck-cpp_int", {n.split("/", 1)[1] for n in listed if n.startswith("CppInt/")}, "the CppInt properties")

    # The fuzz target: its coverage report names every entry it fuzzes, and
    # the committed corpus reaches each.
    status, out = run(build / "fuzz" / "fuzz_invariants", "--assert-coverage", corpus / "invariants")
    reported = {line.split()[0] for line in out.splitlines() if line.startswith("  ") and len(line.split()) > 1}
    expect("fuzz", reported, "fuzz_invariants' coverage report")

    # The seeds: one per kind of each entry (the differential: one per operation).
    seeds = {p.name.split(".")[0] for p in (corpus / "invariants" / "seed").iterdir()}
    differential = next(e for e in entries if len(e["domains"]) > 1)
    for name in runs_in("seeds"):
        if name == differential["name"]:
            missing = [op for op in differential["domains"] if op not in seeds]
            if missing:
                problems.append(f"{name}: no seed for operations {missing}")
        elif name not in seeds:
            problems.append(f"{name}: no seed in {corpus / 'invariants' / 'seed'}")

    # The benchmarks: one per entry.
    status, out = run(build / "bench" / "tpcheck_bench", "--benchmark_list_tests")
    benched = {line.split("/")[1] for line in out.splitlines() if line.startswith("Entry/")}
    expect("sweep", benched, "the benchmarks")

    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        return 1
    print(f"engines_cover_registry: {len(names)} entries, each in every engine it does not exclude")
    return 0


if __name__ == "__main__":
    sys.exit(main())
