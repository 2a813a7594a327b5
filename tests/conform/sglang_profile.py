#!/usr/bin/env python3
"""CTest driver: `tpcheck conform --profile sglang` on files shaped otherwise
than the fixtures, and its reports (standard library only; the Python it is
given has numpy, as Mooncake's and NIXL's code needs).

usage: sglang_profile.py TPCHECK FIXTURE_DIR SCENARIO NUMPY_PYTHON

files_by_content    the five files under other names, in another order: bound
                    by what they define, the in-method import served from the
                    file that defines its names
unlisted_attribute  a version that reads an attribute the SPEC does not list is
                    reported with Python's AttributeError, not given a default
missing_companions  a backend without the common file is skipped saying what
                    it needs; NIXL without the staging file fails loudly where
                    it imports it; the older staging layout is not applicable
inherited_method    a method a class inherits from a base in another file is
                    bound there, compiled with that file's globals; unrelated
                    methods (a default that is not a literal, an unknown
                    decorator) do not stop it
last_definition     of two top-level definitions, the last is the live one
hanging_method      a configuration whose method never returns is cut off at the
                    budget and reported timed_out; the rest is not run
reports             SARIF, Markdown and JSON of a faulty run: a rule and a result
                    per kind found, the notes apart; --baseline reports only
                    the configurations whose answer changed
"""
import json
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from reports import definition_line  # noqa: E402 - beside this file
from robustness import expect, expect_error, run, run_scenario, write  # noqa: E402 - beside this file

FILES = {"common": "sglang/common/conn.py", "staging": "sglang/common/staging_buffer.py",
         "mooncake": "sglang/mooncake/conn.py", "nixl": "sglang/nixl/conn.py", "mori": "sglang/mori/conn.py"}


def conform(tpcheck, python, files, max_tp=4, extra=()):
    code, out, err, _ = run(tpcheck, ["conform", "--profile", "sglang", "--json", "--max-tp", str(max_tp), "--python",
                                      python] + list(extra) + files, timeout=120)
    expect(code in (0, 1), "exit %d" % code, err)
    report = json.loads(out)
    return code, {f["name"]: f for f in report["functions"]}


def source(fixtures, key):
    with open(os.path.join(fixtures, FILES[key]), encoding="utf-8") as f:
        return f.read()


def replaced(text, old, new):
    expect(text.count(old) == 1, "the fixture has %r once" % old)
    return text.replace(old, new)


def files_by_content(tpcheck, fixtures, python):
    with tempfile.TemporaryDirectory() as tmp:
        names = {"nixl": "a.py", "mori": "b.py", "staging": "c.py", "common": "d.py", "mooncake": "e.py"}
        files = []
        for key, name in names.items():
            shutil.copy(os.path.join(fixtures, FILES[key]), os.path.join(tmp, name))
            files.append(os.path.join(tmp, name))
        code, functions = conform(tpcheck, python, files)
    expect(code == 0, "the correct files under other names conform: exit %d" % code, functions)
    # The hybrid state functions need utils.py (sglang_state.py checks them).
    expect(all(f["status"] == "checked" for n, f in functions.items() if "mamba" not in n), "every function found",
           {n: f.get("reason") for n, f in functions.items()})
    expect(functions["NixlKVManager.send_kvcache_slice"]["tallies"]["sends"] > 0, "NIXL sent", functions)
    expect(os.path.basename(functions["compute_head_slice_params"]["file"]) == "c.py", "found in c.py", functions)


def unlisted_attribute(tpcheck, fixtures, python):
    with tempfile.TemporaryDirectory() as tmp:
        common = write(tmp, "conn.py", replaced(source(fixtures, "common"),
                                                "        rank = self.kv_args.engine_rank % decode_size\n",
                                                "        rank = self.attn_tp_rank\n"))
        code, functions = conform(tpcheck, python, [common], extra=["--function", "CommonKVManager._resolve_rank_mapping"])
    f = functions["CommonKVManager._resolve_rank_mapping"]
    expect(code == 1 and [d["kind"] for d in f["deviations"]] == ["rejects_valid"], "rejects_valid", f)
    actual = f["deviations"][0]["smallest"]["actual"]
    expect(actual == "AttributeError: 'CommonKVManager' object has no attribute 'attn_tp_rank'",
           "the attribute nobody set is named", actual)


def missing_companions(tpcheck, fixtures, python):
    path = lambda key: os.path.join(fixtures, FILES[key])  # noqa: E731
    expect_error(run(tpcheck, ["conform", "--profile", "sglang", "--python", python, path("mooncake")]), 2,
                 r"MooncakeKVManager.send_kvcache_slice: .* calls self.get_mha_kv_ptrs_with_pp, which neither "
                 r"MooncakeKVManager nor its bases \(CommonKVManager\) define")
    code, functions = conform(tpcheck, python, [path("mooncake"), path("common")],
                              extra=["--function", "MooncakeKVManager.send_kvcache_slice"])
    expect(code == 0, "with the common file it is checked: exit %d" % code, functions)
    code, functions = conform(tpcheck, python, [path("nixl"), path("common")],
                              extra=["--function", "NixlKVManager.send_kvcache_slice"])
    f = functions["NixlKVManager.send_kvcache_slice"]
    kinds = {d["kind"]: d["smallest"] for d in f["deviations"]}
    expect(code == 1 and "raises:ModuleNotFoundError" in kinds, "without the staging file, its import fails", f)
    expect("sglang" in kinds["raises:ModuleNotFoundError"]["actual"], "the message names the module", kinds)
    expect(kinds["raises:ModuleNotFoundError"]["args"][:2] == [1, 2], "only where P <= D imports it", kinds)
    with tempfile.TemporaryDirectory() as tmp:
        older = write(tmp, "staging_buffer.py", """
            def compute_staging_layout(num_tokens, num_heads, head_dim, dtype_size, num_layers):
                per_layer = num_tokens * num_heads * head_dim * dtype_size
                return per_layer, per_layer * num_layers * 2
            """)
        code, functions = conform(tpcheck, python, [older, path("common")])
    reason = functions["compute_staging_layout"].get("reason", "")
    expect(code == 0 and "not applicable" in reason, "the older form is not applicable, and no failure", reason)


def inherited_method(tpcheck, fixtures, python):
    mori = source(fixtures, "mori")
    start = mori.index("    def _build_tp_slice_config(")
    end = mori.index("    def send_kvcache_slice(")
    method = mori[start:end]
    with tempfile.TemporaryDirectory() as tmp:
        base = write(tmp, "mori_base.py", "import dataclasses\n\n"
                     + mori[mori.index("@dataclasses.dataclass\nclass TPSliceConfig"):mori.index("@dataclasses.dataclass(frozen=True)")]
                     + "class MoriSliceBase:\n" + method)
        derived = write(tmp, "mori_conn.py", """
            import os
            from sglang.somewhere import registered

            class MoriKVManager(MoriSliceBase):
                @registered.hook
                def _unrelated(self, limit=os.environ.get("LIMIT")):
                    return limit

                def _build_helper(self):
                    return self._unrelated()
            """)
        code, functions = conform(tpcheck, python, [derived, base], extra=["--function", "MoriKVManager._build_tp_slice_config"])
    f = functions["MoriKVManager._build_tp_slice_config"]
    expect(f["status"] == "checked" and code == 0, "bound through the base and conforming: exit %d" % code, f)
    expect(os.path.basename(f["file"]) == "mori_base.py", "found where it is defined", f)


def last_definition(tpcheck, fixtures, python):
    staging = source(fixtures, "staging")
    start = staging.index("def compute_head_slice_params(")
    end = staging.index("def compute_staging_layout(")
    wrong = "def compute_head_slice_params(src_attn_tp_size, dst_attn_tp_size, src_tp_rank, dst_tp_rank, " \
            "total_kv_heads):\n    return 0, 1, 0, 1\n\n\n"
    with tempfile.TemporaryDirectory() as tmp:
        path = write(tmp, "staging_buffer.py", staging[:start] + wrong + staging[start:])
        code, functions = conform(tpcheck, python, [path], extra=["--function", "compute_head_slice_params"])
    line = 1 + (staging[:start] + wrong).count("\n")
    f = functions["compute_head_slice_params"]
    expect(code == 0, "the live (second) definition conforms: exit %d" % code, f)
    expect(f["line"] == line, "the second definition's line %d" % line, f)


def hanging_method(tpcheck, fixtures, python):
    with tempfile.TemporaryDirectory() as tmp:
        common = write(tmp, "conn.py", replaced(source(fixtures, "common"),
                                                "        rank = self.kv_args.engine_rank % decode_size\n",
                                                "        rank = self.kv_args.engine_rank % decode_size\n"
                                                "        while prefill_size == 3:\n"
                                                "            pass\n"))
        code, out, err, seconds = run(tpcheck, ["conform", "--profile", "sglang", "--json", "--max-tp", "4", "--timeout",
                                               "1", "--python", python, common], timeout=60)
    expect(code == 1 and seconds < 30, "exit %d after %.1f s, expected 1 within seconds" % (code, seconds), err)
    f = {f["name"]: f for f in json.loads(out)["functions"]}["CommonKVManager._resolve_rank_mapping"]
    expect([d["kind"] for d in f["deviations"]] == ["timed_out"], "timed_out", f)
    expect(f["deviations"][0]["smallest"]["args"][:2] == [3, 1], "the first configuration with P = 3", f)
    expect(f["not_run"] > 0, "the rest is not run", f)


def five_files(fixtures, replace=None):
    """The five fixture files, one of them replaced by another path."""
    replace = replace or {}
    return [replace.get(key, os.path.join(fixtures, path)) for key, path in FILES.items()]


def reports(tpcheck, fixtures, python):
    sys.path.insert(0, fixtures)
    import faults  # noqa: E402 - the fixtures directory is only known at run time
    args = ["conform", "--profile", "sglang", "--max-tp", "4", "--python", python]
    with tempfile.TemporaryDirectory() as cwd:
        nixl = faults.materialize(fixtures, "sglang_nixl_groups_ignore_replication", cwd)
        files = five_files(fixtures, {"nixl": nixl})
        code, out, err, _ = run(tpcheck, args + ["--json", "--sarif", "out.sarif", "--markdown", "out.md"] + files,
                                cwd=cwd, timeout=120)
        expect(code == 1, "exit %d" % code, err)
        report = json.loads(out)
        with open(os.path.join(cwd, "out.sarif"), encoding="utf-8") as f:
            sarif = json.load(f)["runs"][0]
        with open(os.path.join(cwd, "out.md"), encoding="utf-8") as f:
            markdown = f.read()
        functions = {f["name"]: f for f in report["functions"]}
        deviations = [(f, d) for f in report["functions"] for d in f.get("deviations", [])]
        expect([d["kind"] for _, d in deviations] == ["src_dlist_outside_region"] * 2 or
               [d["kind"] for _, d in deviations] == ["src_dlist_outside_region"], "the fault's kind", deviations)
        rules = sarif["tool"]["driver"]["rules"]
        ids = [r["id"] for r in rules]
        expect(len(set(ids)) == len(ids) and "src_dlist_outside_region" in ids and "wrong_heads" in ids,
               "a rule per failing kind of the profile", ids)
        expect("redundant" not in ids, "no rule for an informational kind", ids)
        expect(len(sarif["results"]) == len(deviations), "a result per function and kind", sarif["results"])
        for result, (f, d) in zip(sarif["results"], deviations):
            expect(result["ruleId"] == d["kind"] and rules[result["ruleIndex"]]["id"] == d["kind"], "the rule", result)
            expect(result["level"] == "error", "a failure is an error", result)
            text = result["message"]["text"]
            for part in (d["smallest"]["call"], d["smallest"]["expected"], d["smallest"]["actual"], d["meaning"],
                         "%d of %d configurations" % (d["count"], f["cases"])):
                expect(part in text, "the message has %r" % part, text)
            line = definition_line(f["file"], f["found"])
            expect(result["locations"][0]["physicalLocation"]["region"]["startLine"] == line, "at the method", result)
        notes = [n["message"]["text"] for n in sarif["invocations"][0]["toolExecutionNotifications"]
                 if n["level"] == "note"]
        expect(any(n.startswith("NixlKVManager.send_kvcache_slice: redundant in ") for n in notes), "notes", notes)
        f = functions["NixlKVManager.send_kvcache_slice"]
        expect(f["params"] == ["P", "D", "H", "page_size", "probe", "p", "d"], "params name P, D, H and ranks", f)
        expect(len(f["deviations"][0]["smallest"]["args"]) == len(f["params"]), "an argument per param", f)
        expect(f["deviations"][0]["smallest"]["args"] == [1, 2, 1, 1, 0, 0, 0], "the smallest case", f)
        expect(set(f["tallies"]) == {"configurations", "sends", "decode ranks", "transfers", "decoded bytes"},
               "what the configurations held", f["tallies"])
        row = "| `NixlKVManager.send_kvcache_slice` at `%s:%d` | %d | src_dlist_outside_region: %d | `%s`: expected" % (
            f["file"], f["line"], f["cases"], f["deviations"][0]["count"], f["deviations"][0]["smallest"]["call"])
        expect(row in markdown, "the function's row", row, markdown)
        expect("| `NixlKVManager.send_kvcache_slice (without total_kv_head_num)` at " in markdown,
               "the row reported apart is told apart", markdown)
        expect("Notes (not deviations):" in markdown and "redundant" in markdown, "the notes", markdown)
        # A baseline of the correct files: only NIXL's configurations changed.
        code, _, err, _ = run(tpcheck, args + ["--record", "base.txt"] + five_files(fixtures), cwd=cwd, timeout=120)
        expect(code == 0, "the correct files recorded", err)
        code, out, err, _ = run(tpcheck, args + ["--json", "--baseline", "base.txt"] + files, cwd=cwd, timeout=120)
        expect(code == 1, "a changed configuration deviates: exit %d" % code, err)
        changed = {f["name"]: f["changes"] for f in json.loads(out)["functions"] if f.get("changes")}
        expect(set(changed) == {"NixlKVManager.send_kvcache_slice",
                                "NixlKVManager.send_kvcache_slice (without total_kv_head_num)"},
               "only NIXL's configurations changed", changed)


def main():
    return run_scenario(globals(), [sys.argv[4]])


if __name__ == "__main__":
    sys.exit(main())
