#!/usr/bin/env python3
"""CTest driver: `tpcheck conform --profile trtllm` on Python files that misbehave (standard library only).

usage: robustness_trtllm_python.py TPCHECK FIXTURE_DIR SCENARIO PYTHON

FIXTURE_DIR is tests/conform/fixtures/trtllm/python; PYTHON has numpy. Each
scenario changes the correct peer.py or block.py in a temporary directory
and asserts that tpcheck reads what the code does without crashing or
hanging: one clear report or line, the right exit status.
"""
import json
import os
import subprocess
import sys
import tempfile
import time


def changed(fixture_dir, tmp, name, edits, directory="changed"):
    with open(os.path.join(fixture_dir, name)) as f:
        text = f.read()
    for old, new in edits:
        if text.count(old) != 1:
            sys.exit("%r occurs %d times in %s" % (old[:60], text.count(old), name))
        text = text.replace(old, new)
    path = os.path.join(tmp, directory, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


def run(tpcheck, python, files, *options):
    started = time.monotonic()
    r = subprocess.run([tpcheck, "conform", "--profile", "trtllm", "--json", "--python", python, "--max-tp", "4"] +
                       list(options) + files, capture_output=True, text=True, timeout=300)
    return r, time.monotonic() - started


def function(report, name):
    return next(f for f in report["functions"] if f["name"] == name)


def kinds(f):
    return sorted(d["kind"] for d in f.get("deviations", []))


def main():
    tpcheck, fixture_dir, scenario, python = sys.argv[1:5]
    peer, block = os.path.join(fixture_dir, "peer.py"), os.path.join(fixture_dir, "block.py")
    failures = []

    def expect(condition, what):
        if not condition:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        if scenario == "peer_only":
            # Without block.py: what needs the mappers is skipped, saying what is missing.
            r, _ = run(tpcheck, python, [peer])
            expect(r.returncode == 0, "exit %d: %s" % (r.returncode, r.stderr))
            report = json.loads(r.stdout)
            kv_map = function(report, "PeerRegistrar.get_kv_map")
            expect(kv_map["status"] == "skipped" and "give block.py" in kv_map["reason"], "get_kv_map: %r" % kv_map)
            offsets = function(report, "HeadMismatchMapper._compute_head_offsets")
            expect(offsets["status"] == "skipped" and "HeadMismatchMapper" in offsets["reason"], "offsets: %r" % offsets)
            expect(function(report, "PeerRegistrar.get_peer_overlap")["status"] == "checked", "overlap not checked")
        elif scenario == "files_by_content":
            # The files are recognised by what they define: any names, any order.
            renamed = os.path.join(tmp, "mappers_module.py")
            with open(block) as f, open(renamed, "w") as out:
                out.write(f.read())
            r, _ = run(tpcheck, python, [renamed, peer])
            expect(r.returncode == 0, "exit %d: %s" % (r.returncode, r.stderr))
            report = json.loads(r.stdout)
            expect(all(f["status"] == "checked" for f in report["functions"] if "::" not in f["name"] and
                       f["name"] != "targetIRanks"), "statuses: %r" % [(f["name"], f["status"]) for f in
                                                                       report["functions"]])
        elif scenario == "odd_answers":
            # Ranks that are not ranks, factors that are not integers, pointers
            # in floating point: read as findings, never a crash.
            odd_peer = changed(fixture_dir, tmp, "peer.py", [(
                "            ranks=ranks,\n",
                "            ranks=ranks + ([-1, 1.5, 10**30] if ri.tp_size == 2 else []),\n"), (
                "            duplicate_head_factor=max(1, self_heads // peer_heads),\n",
                "            duplicate_head_factor=None if ri.tp_size == 4 else max(1, self_heads // peer_heads),\n")])
            odd_block = changed(fixture_dir, tmp, "block.py", [(
                "        src_ptrs = [p + self._src_offset for p in src.memory.ptrs]\n",
                "        src_ptrs = [p + self._src_offset + 0.5 for p in src.memory.ptrs]\n")])
            r, _ = run(tpcheck, python, [odd_peer, odd_block], "--function", "PeerRegistrar.get_peer_overlap",
                       "--function", "PeerRegistrar.get_kv_map")
            expect(r.returncode == 1, "exit %d: %s" % (r.returncode, r.stderr))
            report = json.loads(r.stdout)
            overlap = function(report, "PeerRegistrar.get_peer_overlap")
            expect({"out_of_range", "wrong_ranks"} <= set(kinds(overlap)), "overlap kinds: %r" % kinds(overlap))
            notes = [d["kind"] for d in overlap.get("notes", [])]
            expect("duplicate_head_factor" in notes, "overlap notes: %r" % notes)
            expect("mapper_error" in kinds(function(report, "PeerRegistrar.get_kv_map")),
                   "get_kv_map kinds: %r" % kinds(function(report, "PeerRegistrar.get_kv_map")))
            expect("crashed" not in kinds(overlap) + kinds(function(report, "PeerRegistrar.get_kv_map")),
                   "a line tpcheck could not read")
        elif scenario == "mapper_raises":
            raising = changed(fixture_dir, tmp, "block.py", [(
                "    def map(self, src: SpecRegion, dst: SpecRegion) -> SpecRegionPair:\n"
                "        src_ptrs = (np.asarray",
                "    def map(self, src: SpecRegion, dst: SpecRegion) -> SpecRegionPair:\n"
                "        raise RuntimeError('no such region')\n"
                "        src_ptrs = (np.asarray")])
            r, _ = run(tpcheck, python, [peer, raising], "--function", "PeerRegistrar.get_kv_map")
            expect(r.returncode == 1, "exit %d: %s" % (r.returncode, r.stderr))
            f = function(json.loads(r.stdout), "PeerRegistrar.get_kv_map")
            expect(kinds(f) == ["mapper_error", "missing"], "kinds: %r" % kinds(f))
            smallest = next(d for d in f["deviations"] if d["kind"] == "mapper_error")["smallest"]
            expect("RuntimeError: no such region" in smallest["actual"], "mapper_error: %r" % smallest)
        elif scenario == "hanging_map":
            # A map that never returns: cut off at the budget, the run bounded.
            hanging = changed(fixture_dir, tmp, "block.py", [(
                "        return SpecRegionPair(\n"
                "            src=SpecRegion(memory=MemRegionGroup(src.memory.ptrs, src.memory.bytes_per_region)),\n",
                "        while True:\n"
                "            pass\n"
                "        return SpecRegionPair(\n"
                "            src=SpecRegion(memory=MemRegionGroup(src.memory.ptrs, src.memory.bytes_per_region)),\n")])
            r, seconds = run(tpcheck, python, [peer, hanging], "--function", "PeerRegistrar.get_kv_map",
                             "--timeout", "1")
            expect(r.returncode == 1, "exit %d: %s" % (r.returncode, r.stderr))
            expect(seconds < 60, "took %.1f s with --timeout 1" % seconds)
            f = function(json.loads(r.stdout), "PeerRegistrar.get_kv_map")
            expect("timed_out" in kinds(f), "kinds: %r" % kinds(f))
        else:
            sys.exit("unknown scenario " + scenario)
    if failures:
        print("FAIL %s:\n  %s" % (scenario, "\n  ".join(failures)))
        sys.exit(1)


if __name__ == "__main__":
    main()
