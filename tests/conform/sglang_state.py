#!/usr/bin/env python3
"""CTest driver: the sglang profile's hybrid state functions (SPEC §16.6,
§16.7) on files that do not bind or do not behave (standard library only).

usage: sglang_state.py TPCHECK FIXTURE_DIR SCENARIO PYTHON

unbindable   a method whose module helpers no given file defines, one with a
             parameter the profile has no value for, and the row with
             segments of a signature without them: each skipped, saying why;
             the others are checked
misbehaving  a helper that answers garbage, one that raises, a manager that
             allocates without bound, one that refuses, one that hangs: each
             reported as its kind, the run goes on to the end
isolated     code under test that reads standard input, imports a module
             beside its file, and looks for tpcheck's own names: it finds
             nothing of tpcheck's, and says so as what it raises
families     --family: one family's configurations only; a family that does
             not exist, or --family for a profile without state functions, is
             a usage error (exit 2, one line)
"""
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from robustness import expect, expect_error, run, run_scenario, write  # noqa: E402 - beside this file

FILES = {"common": "sglang/common/conn.py", "mooncake": "sglang/mooncake/conn.py", "nixl": "sglang/nixl/conn.py",
         "utils": "sglang/utils.py"}
MOONCAKE = "MooncakeKVManager._send_mamba_state_slice"
NIXL = "NixlKVManager._send_mamba_state_slice"
BLOCKS = "compute_mamba_state_slice_blocks"
BYTE_BLOCKS = "compute_mamba_state_slice_byte_blocks"
REGISTERED, SEGMENTS = " (as registered)", " (with segments)"


def path(fixtures, key):
    return os.path.join(fixtures, FILES[key])


def source(fixtures, key):
    with open(path(fixtures, key), encoding="utf-8") as f:
        return f.read()


def replaced(text, old, new):
    expect(text.count(old) == 1, "the fixture has %r once" % old)
    return text.replace(old, new)


def conform(tpcheck, python, files, extra=(), timeout=120):
    code, out, err, seconds = run(tpcheck, ["conform", "--profile", "sglang", "--json", "--max-tp", "4", "--python",
                                            python] + list(extra) + files, timeout=timeout)
    expect(code in (0, 1), "exit %d" % code, err)
    return code, {f["name"]: f for f in json.loads(out)["functions"]}, seconds


def kinds(f):
    return [d["kind"] for d in f["deviations"]]


def unbindable(tpcheck, fixtures, python):
    # Without utils.py the managers cannot slice: skipped, naming the helper and the file.
    code, functions, _ = conform(tpcheck, python, [path(fixtures, "common"), path(fixtures, "mooncake")],
                                 ["--family", "mamba1"])
    reason = functions[MOONCAKE + REGISTERED].get("reason", "")
    expect(functions[MOONCAKE + REGISTERED]["status"] == "skipped" and "compute_mamba_state_slice_byte_blocks" in reason
           and "utils.py" in reason, "skipped, naming the helper and utils.py", reason)
    expect(functions["MooncakeKVManager.send_kvcache_slice"]["status"] == "checked", "the KV transfers are checked",
           functions["MooncakeKVManager.send_kvcache_slice"])
    with tempfile.TemporaryDirectory() as tmp:
        # A version with a parameter the profile has no value for.
        mooncake = write(tmp, "conn.py", replaced(source(fixtures, "mooncake"),
                                                  "        dst_attn_tp_size: int,\n        src_state_conv_shard_groups",
                                                  "        dst_attn_tp_size: int,\n        draft_state_indices: List[int],\n"
                                                  "        src_state_conv_shard_groups"))
        # A NIXL version of signature (b): no segment widths.
        nixl = write(tmp, "nixl.py", replaced(source(fixtures, "nixl"),
                                              "        src_state_conv_shard_groups: Optional[List[Optional[List[int]]]] = None,\n"
                                              "        src_state_slice_outer_counts: Optional[List[int]] = None,\n"
                                              "        src_layer_ids: Optional[List[int]] = None,\n"
                                              "        dst_layer_ids: Optional[List[int]] = None,\n    ):\n",
                                              "    ):\n        src_state_conv_shard_groups = src_state_slice_outer_counts = None\n"
                                              "        src_layer_ids = dst_layer_ids = None\n"))
        code, functions, _ = conform(tpcheck, python, [path(fixtures, "common"), mooncake, nixl, path(fixtures, "utils")],
                                     ["--family", "mamba1"])
    reason = functions[MOONCAKE + REGISTERED].get("reason", "")
    expect("draft_state_indices" in reason and "no default" in reason, "the unknown parameter named", reason)
    reason = functions[NIXL + SEGMENTS].get("reason", "")
    expect("takes no src_state_conv_shard_groups" in reason and NIXL + REGISTERED in reason,
           "with segments is the row as registered, reported once", reason)
    expect(functions[NIXL + REGISTERED]["status"] == "checked" and not kinds(functions[NIXL + REGISTERED]),
           "signature (b) is checked, and conforms", functions[NIXL + REGISTERED])
    expect(functions[BLOCKS + SEGMENTS]["status"] == "checked", "the helpers are checked", functions[BLOCKS + SEGMENTS])


def misbehaving(tpcheck, fixtures, python):
    utils = source(fixtures, "utils")
    utils = replaced(utils, "    src_tp, dst_tp = src_attn_tp_size, dst_attn_tp_size\n",
                     "    if conv_shard_groups is None:\n        return \"blocks\"\n"
                     "    src_tp, dst_tp = src_attn_tp_size, dst_attn_tp_size\n")
    utils = replaced(utils, "    src_unit = src_item_len // (outer_count * src_dim)\n",
                     "    src_unit = src_item_len // (outer_count * src_dim) // (src_attn_tp_size - 2)\n")
    mooncake = replaced(source(fixtures, "mooncake"),
                        "        local_rank = self.kv_args.engine_rank % self.attn_tp_size\n        dst_rank = dst_tp_rank",
                        "        if self.attn_tp_size == 4:\n            hoard = []\n            while True:\n"
                        "                hoard.append(bytearray(1 << 34))\n"
                        "        if self.attn_tp_size == 1:\n            return -1\n"
                        "        local_rank = self.kv_args.engine_rank % self.attn_tp_size\n        dst_rank = dst_tp_rank")
    nixl = replaced(source(fixtures, "nixl"),
                    "        local_rank = self.kv_args.engine_rank % self.attn_tp_size\n        dst_rank = decode_tp_rank",
                    "        while self.attn_tp_size == 2:\n            pass\n"
                    "        local_rank = self.kv_args.engine_rank % self.attn_tp_size\n        dst_rank = decode_tp_rank")
    with tempfile.TemporaryDirectory() as tmp:
        files = [path(fixtures, "common"), write(tmp, "utils.py", utils), write(tmp, "mooncake.py", mooncake),
                 write(tmp, "nixl.py", nixl)]
        code, functions, seconds = conform(tpcheck, python, files,
                                           ["--family", "mamba1", "--timeout", "1", "--memory", "1024"] +
                                           [a for n in (BLOCKS, BYTE_BLOCKS, MOONCAKE, NIXL)
                                            for a in ("--function", n + REGISTERED)], timeout=180)
    expect(code == 1 and seconds < 90, "exit %d after %.0f s" % (code, seconds))
    f = functions[BLOCKS + REGISTERED]
    expect(kinds(f)[0] == "malformed_blocks" and f["deviations"][0]["smallest"]["actual"].startswith("?str"),
           "garbage is malformed_blocks", f)
    f = functions[BYTE_BLOCKS + REGISTERED]
    expect("raises:ZeroDivisionError" in kinds(f), "a helper's exception is its kind", f)
    expect(f["cases"] == 12 and f["not_run"] == 0, "and the run went on", f)
    f = functions[MOONCAKE + REGISTERED]
    expect("refused" in kinds(f) and "raises:MemoryError" in kinds(f), "a refusal and unbounded allocation", f)
    refused = next(d for d in f["deviations"] if d["kind"] == "refused")
    expect(refused["smallest"]["args"][0] == 1 and refused["smallest"]["actual"] == "returned -1", "P = 1 refuses", refused)
    f = functions[NIXL + REGISTERED]
    hung = [d for d in f["deviations"] if d["kind"] == "timed_out"]
    expect(hung and hung[0]["smallest"]["args"][:2] == [2, 1] and f["not_run"] > 0,
           "a hang is timed_out at the first P = 2, and what follows is not run", f)


def isolated(tpcheck, fixtures, python):
    mooncake = replaced(source(fixtures, "mooncake"),
                        "        local_rank = self.kv_args.engine_rank % self.attn_tp_size\n        dst_rank = dst_tp_rank",
                        "        import sys\n"
                        "        if sys.stdin.read():\n            raise RuntimeError(\"standard input had data\")\n"
                        "        ours = [n for n in sys.modules if n.startswith(\"tpcheck\") and \"conform_source\" not in n]\n"
                        "        if ours or \"TransferDriver\" in globals() or \"_drive\" in globals():\n"
                        "            raise RuntimeError(\"reached tpcheck's %s\" % ours)\n"
                        "        import conn_neighbour  # beside this file: not importable\n"
                        "        local_rank = self.kv_args.engine_rank % self.attn_tp_size\n        dst_rank = dst_tp_rank")
    with tempfile.TemporaryDirectory() as tmp:
        write(tmp, "conn_neighbour.py", "VALUE = 1\n")
        files = [path(fixtures, "common"), write(tmp, "conn.py", mooncake), path(fixtures, "utils")]
        code, functions, _ = conform(tpcheck, python, files, ["--family", "mamba1", "--function", MOONCAKE + REGISTERED])
    f = functions[MOONCAKE + REGISTERED]
    expect(kinds(f) == ["raises:ModuleNotFoundError", "unwritten"], "it reaches only the failed import", f)
    expect("conn_neighbour" in f["deviations"][0]["smallest"]["actual"], "named", f)


def families(tpcheck, fixtures, python):
    files = [path(fixtures, k) for k in ("common", "mooncake", "utils")]
    code, functions, _ = conform(tpcheck, python, files, ["--family", "kda", "--family", "kda", "--function",
                                                           MOONCAKE + SEGMENTS])
    f = functions[MOONCAKE + SEGMENTS]
    expect(code == 0 and f["cases"] == 12 and set(f["labels"]["model"].values()) == {"kda(24, 2)"},
           "only KDA's configurations (8 valid, 4 not divisible up to --max-tp 4)", f)
    expect_error(run(tpcheck, ["conform", "--profile", "sglang", "--family", "mamba3"] + files), 2,
                 r"^tpcheck conform: unknown family 'mamba3' for --family \(known: mamba2, gdn, kda, mamba1\)")
    expect_error(run(tpcheck, ["conform", "--profile", "vllm-moriio", "--family", "gdn",
                               os.path.join(fixtures, "moriio_correct.py")]), 2,
                 r"^tpcheck conform: --family is an option of (--profile [\w-]+ or )*--profile sglang\b")


def main():
    return run_scenario(globals(), [sys.argv[4]])


if __name__ == "__main__":
    sys.exit(main())
