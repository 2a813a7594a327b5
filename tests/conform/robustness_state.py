#!/usr/bin/env python3
"""CTest driver: `tpcheck conform` on hybrid state functions that cannot be
bound or misbehave (standard library only).

usage: robustness_state.py TPCHECK FIXTURE_DIR SCENARIO PYTHON

FIXTURE_DIR is tests/conform/fixtures. Each scenario changes the correct
vLLM NIXL or TensorRT-LLM files in a temporary directory and asserts that
tpcheck says what it skips and why, reports a function that raises, hangs,
allocates without bound or answers garbage as its kind, goes on with the
other functions, and never crashes or hangs itself.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from robustness_trtllm_python import changed  # noqa: E402 - beside this file

NIXL = ["vllm/kv_connector/utils.py", "vllm/kv_connector/ssm_conv_transfer_utils.py", "vllm/kv_connector/nixl/worker.py"]
TRTLLM = ["trtllm/python/peer.py", "trtllm/python/block.py"]
SPLIT = "derive_mamba_conv_split"
OFFSETS = "MambaConvSplitInfo.local_conv_offsets"
REMOTE = "MambaConvSplitInfo.remote_conv_offsets"
WORKER = "NixlConnectorWorker._build_mamba_remote"
SECTIONS = "ConvStateMismatchMapper._compute_section_plans"
HEADS = "MambaHeadMismatchMapper"


def run(tpcheck, python, profile, files, *options):
    started = time.monotonic()
    r = subprocess.run([tpcheck, "conform", "--profile", profile, "--json", "--python", python] + list(options) + files,
                       capture_output=True, text=True, timeout=300)
    return r, time.monotonic() - started


def functions(r):
    return {f["name"]: f for f in json.loads(r.stdout)["functions"]}


def kinds(f):
    return {d["kind"] for d in f.get("deviations", [])}


def main():
    tpcheck, fixture_dir, scenario, python = sys.argv[1:5]
    failures = []

    def expect(condition, what):
        if not condition:
            failures.append(what)

    nixl = [os.path.join(fixture_dir, f) for f in NIXL]
    with tempfile.TemporaryDirectory() as tmp:
        if scenario == "unbound":
            # A split without the remote offsets, a default that is not a
            # literal, a worker without one of its two methods: each function
            # that cannot be bound is skipped, naming why; the others run.
            split = changed(fixture_dir, tmp, NIXL[1], [
                ("    def remote_conv_offsets(self, local_rank_offset: int, tp_ratio: int,\n",
                 "    def remote_offsets(self, local_rank_offset: int, tp_ratio: int,\n"),
                ("def derive_mamba_conv_split(mamba_spec: MambaSpec, local_tp: int, require_dim_first: bool = True)",
                 "def derive_mamba_conv_split(mamba_spec: MambaSpec, local_tp: int,\n"
                 "                            require_dim_first: bool = envs.VLLM_SSM_CONV_STATE_LAYOUT == \"DS\")")])
            r, _ = run(tpcheck, python, "vllm-nixl", [nixl[0], split, nixl[2]])
            expect(r.returncode == 0, "a split that cannot be bound: exit %d: %s" % (r.returncode, r.stderr))
            got = functions(r)
            for name in (SPLIT, OFFSETS, REMOTE, WORKER):
                expect(got[name]["status"] == "skipped" and "is not a literal" in got[name]["reason"],
                       "%s: %r" % (name, got[name]))
            expect(got["compute_physical_blocks_per_logical"]["status"] == "checked", "the block count runs")
            split = changed(fixture_dir, tmp, NIXL[1], [
                ("    def remote_conv_offsets(self, local_rank_offset: int, tp_ratio: int,\n",
                 "    def remote_offsets(self, local_rank_offset: int, tp_ratio: int,\n")])
            worker = changed(fixture_dir, tmp, NIXL[2], [
                ("    def _build_mamba_local(self, base_addresses: list[int], block_size_ratio: int)",
                 "    def _build_local(self, base_addresses: list[int], block_size_ratio: int)")])
            r, _ = run(tpcheck, python, "vllm-nixl", [nixl[0], split, worker])
            expect(r.returncode == 0, "unbound methods: exit %d: %s" % (r.returncode, r.stderr))
            got = functions(r)
            expect(got[REMOTE]["status"] == "skipped" and "has no remote_conv_offsets" in got[REMOTE]["reason"],
                   "remote: %r" % got[REMOTE])
            # Without the worker's methods the rows would be composed from
            # the split's offsets, which this split lacks.
            expect(got[WORKER]["status"] == "skipped" and "_build_mamba_local" in got[WORKER]["reason"] and
                   "has no remote_conv_offsets" in got[WORKER]["reason"], "worker: %r" % got[WORKER])
            expect(got[SPLIT]["status"] == "checked" and got[OFFSETS]["status"] == "checked", "split and offsets run")
            # TensorRT-LLM's block.py of a version without the state mappers.
            r, _ = run(tpcheck, python, "trtllm", [os.path.join(fixture_dir, TRTLLM[0])],
                       "--function", SECTIONS, "--function", HEADS)
            expect(r.returncode == 2 and "cannot be checked" in r.stderr, "asked-for mappers missing: %d %s" % (
                r.returncode, r.stderr))
        elif scenario == "misbehaving":
            # A split that hangs on one family, offsets that are not numbers, a
            # worker that allocates without bound on one and raises on another:
            # each reported as its kind, the others judged, the run bounded.
            split = changed(fixture_dir, tmp, NIXL[1], [
                ("    shapes, dtypes = mamba_spec.shapes, mamba_spec.dtypes\n",
                 "    shapes, dtypes = mamba_spec.shapes, mamba_spec.dtypes\n"
                 "    while len(shapes) == 4 and local_tp == 8:\n"
                 "        pass\n"),
                ("        out, start = [], 0\n        for size, remote, held_whole in",
                 "        if len(self.proj_bytes) == 1:\n"
                 "            return [(0.5, \"bytes\"), None]\n"
                 "        out, start = [], 0\n        for size, remote, held_whole in")])
            worker = changed(fixture_dir, tmp, NIXL[2], [
                ("        conv_bytes, ssm_bytes = self._mamba_ssm_size\n",
                 "        conv_bytes, ssm_bytes = self._mamba_ssm_size\n"
                 "        if len(self._conv_decomp.local_proj_dims) == 1:\n"
                 "            import mmap\n"
                 "            mmap.mmap(-1, 6 << 30)\n"),
                ("        remote_conv_bytes, remote_ssm_bytes = nixl_agent_meta.ssm_sizes\n",
                 "        remote_conv_bytes, remote_ssm_bytes = nixl_agent_meta.ssm_sizes\n"
                 "        if self._conv_decomp.local_proj_dims[0] == 2 * self._conv_decomp.local_proj_dims[1]:\n"
                 "            raise TypeError('no rows where x is twice B')\n")])
            r, seconds = run(tpcheck, python, "vllm-nixl", [nixl[0], split, worker], "--timeout", "1")
            expect(r.returncode == 1, "exit %d: %s" % (r.returncode, r.stderr))
            expect(seconds < 60, "took %.1f s with --timeout 1" % seconds)
            got = functions(r)
            expect("timed_out" in kinds(got[SPLIT]), "split: %r" % kinds(got[SPLIT]))
            expect("crashed" in kinds(got[REMOTE]), "remote: %r" % kinds(got[REMOTE]))
            worker_kinds = kinds(got[WORKER])
            expect({"raises:TypeError", "unwritten"} <= worker_kinds and
                   any(k in worker_kinds for k in ("raises:OSError", "raises:MemoryError")), "worker: %r" % worker_kinds)
            expect(got["compute_physical_blocks_per_logical"]["deviations"] == [], "the block count is judged clean")
            # TensorRT-LLM: plans that are not triples, and a head mapper that hangs.
            block = changed(fixture_dir, tmp, TRTLLM[1], [
                ("        return plans\n", "        return plans if len(plans) > 1 else [(1.5, 'x')]\n"),
                ("        self._layers = (transfer_layers, src_layer_off, dst_layer_off)\n"
                 "        self._bytes_cont_heads",
                 "        self._layers = (transfer_layers, src_layer_off, dst_layer_off)\n"
                 "        while self_tp_per_dp == 8:\n"
                 "            pass\n"
                 "        self._bytes_cont_heads")])
            r, seconds = run(tpcheck, python, "trtllm", [os.path.join(fixture_dir, TRTLLM[0]), block],
                             "--function", SECTIONS, "--function", HEADS, "--timeout", "1")
            expect(r.returncode == 1, "trtllm: exit %d: %s" % (r.returncode, r.stderr))
            expect(seconds < 60, "trtllm: took %.1f s with --timeout 1" % seconds)
            got = functions(r)
            expect("crashed" in kinds(got[SECTIONS]), "sections: %r" % kinds(got[SECTIONS]))
            expect("timed_out" in kinds(got[HEADS]), "heads: %r" % kinds(got[HEADS]))
        else:
            sys.exit("unknown scenario " + scenario)
    if failures:
        print("FAIL %s:\n  %s" % (scenario, "\n  ".join(failures)))
        sys.exit(1)
    print("ok " + scenario)


if __name__ == "__main__":
    main()
