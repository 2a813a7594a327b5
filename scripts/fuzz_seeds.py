#!/usr/bin/env python3
"""Writes the hand-chosen seed inputs of the parser fuzz targets
(corpus/{eval_line,cli_options,conform_protocol}/seed/): lines, arguments and
protocol replies as text. cli_options seeds start with two integer fields in
the byte format of fuzz/fuzz_input.hpp (a mode byte and a little-endian 64-bit
payload).

The registry targets (invariants, differential) take their seeds from the
registry itself: build/fuzz/tpcheck_fuzz_seeds --write corpus.

  scripts/fuzz_seeds.py                 rewrite those seed directories from this file
  scripts/fuzz_seeds.py --check BUILD   check that the committed seeds are
                                        exactly what this file writes

Standard library only; python3 >= 3.9.
"""

import argparse
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
MASK64 = (1 << 64) - 1
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1

# --- the integer fields of fuzz/fuzz_input.cpp -------------------------------


def _field(mode, payload):
    return bytes([mode]) + (payload & MASK64).to_bytes(8, "little")


def _integer_mode(v):
    """(mode, payload) whose rule in FuzzInput::int64 yields exactly v (an int64)."""
    if 0 <= v <= 8:
        return 0, v
    if 0 <= v <= 1024:
        return 6, v
    if -9 <= v <= -1:
        return 13, -1 - v
    if INT64_MIN <= v <= INT64_MAX:
        return 10, v
    raise ValueError(f"{v} is not an int64")


class Field:
    def __init__(self, name, value, data):
        self.name, self.value, self.data = name, value, data


def integer(name, v):
    """FuzzInput::int64's field for v."""
    return Field(name, v, _field(*_integer_mode(v)))


# fuzz_eval_line picks the model type by the line's length mod 4.
EVAL_TYPES = ("auto", "int16", "int64", "cpp_int")


def in_type(line, model_type):
    """line, padded with trailing spaces so that fuzz_eval_line runs it in model_type."""
    return line + " " * ((EVAL_TYPES.index(model_type) - len(line)) % 4)


def eval_line_seeds():
    big = "9" * 40
    return {
        "head_compatible_true": in_type("head_compatible 4 8", "auto"),
        "head_compatible_false": in_type("head_compatible 3 8", "cpp_int"),
        "int16_fits": in_type("plan 1 4 6 8 0", "int16"),
        "int16_does_not_fit": in_type("remote_rank 5 8 40000", "int16"),
        "int64_fits": in_type("window 1 2 8", "int64"),
        "int64_does_not_fit": in_type("tp_ratio 1 " + big, "int64"),
        "cpp_int_beyond_64": in_type("general_rank 3 " + big + " 7", "cpp_int"),
        "remote_rank": "remote_rank 5 8 4",
        "remote_rank_error": "remote_rank 0 4 6",
        "window": "window 0 2 4",
        "plan_mla": "plan 3 4 6 8 1",
        "guard": "kv_heads_guard 4 2 4 0",
        "port_offset": "port_offset 3 5 16",
        "beyond_64": f"general_rank {big} 1{big} {big}",
        "signs_and_zeros": "tp_ratio +0008 -04",
        "tabs_and_spaces": "  readers\t1 4 6 2 0  ",
        "empty": "",
        "blank": "   \t ",
        "unknown_operation": "frobnicate 1 2",
        "too_few_arguments": "remote_rank 1 2",
        "too_many_arguments": "tp_ratio 1 2 3",
        "not_an_integer": "heads x 2 3",
        "float": "heads 1.0 2 3",
        "mla_not_a_flag": "plan 0 4 6 2 2",
        "too_many_digits": "tp_ratio 1 " + "1" * 4301,
        "most_digits": "tp_ratio 1 " + "1" * 4300,
        "sign_only": "host_index - 4 2",
        "window_too_long_to_list": "window 0 1 2000000",
        "stage_plan": "stage_plan 0 3 0 2 4 8 0",
        "stage_window_int16_past_edge": in_type("stage_window 0 32766 0 32767 32767", "int16"),
        "stage_served_adp_arity": "stage_served 0 0 0 4 2 1",
        "trtllm_accepts": "trtllm_accepts 3 2 1 0",
        "sglang_targets_past_last": "sglang_target_ranks 5 4 6",
    }


def cli_options_seeds():
    def s(lo, hi, *args):
        fields = [integer("lo", lo), integer("hi", hi)]
        return b"".join(f.data for f in fields) + "\n".join(args).encode()
    return {
        "all_options": s(1, 4096, "--max-tp", "8", "--max-heads", "16", "--threads", "2", "--json"),
        "help": s(1, 10, "--help"),
        "verify_invariants_and_list": s(1, 10, "--invariant", "RoundTripReturnsHome", "--invariant", "--list", "--list"),
        "unknown_option": s(0, 100, "--frobnicate"),
        "missing_value": s(1, 4096, "--max-tp"),
        "value_too_large": s(1, 4096, "--max-tp", "4097"),
        "value_not_a_number": s(1, 256, "--threads", "two"),
        "value_with_plus": s(1, 256, "--threads", "+3"),
        "value_leading_zeros": s(1, 256, "--threads", "007"),
        "value_negative": s(-50, 50, "-7"),
        "int64_extremes": s(INT64_MIN, INT64_MAX, "-9223372036854775808"),
        "int64_overflow": s(INT64_MIN, INT64_MAX, "9223372036854775808"),
        "empty_argument": s(0, 0, ""),
        "sizing_full": s(1, 8, "--prefill-tp", "4", "--decode-tp", "6", "--kv-heads", "12", "--connector", "nixl",
                         "--dp-size", "2", "--base-port", "50000", "--prefill-hosts", "2", "--decode-hosts", "3",
                         "--json"),
        "sizing_plan_mla": s(1, 8, "--prefill-tp", "4", "--decode-tp", str(1 << 70), "--mla", "--decode-rank", "5",
                             "--bytes-per-head", "256"),
        "sizing_heads_and_mla": s(1, 8, "--prefill-tp", "4", "--decode-tp", "2", "--kv-heads", "2", "--mla"),
        "sizing_given_twice": s(1, 8, "--prefill-tp", "4", "--prefill-tp", "8", "--decode-tp", "2", "--mla"),
        "sizing_unknown_connector": s(1, 8, "--connector", "rdma", "--prefill-tp", "1"),
        "sizing_ports_alone": s(1, 8, "--prefill-tp", "1", "--decode-tp", "1", "--mla", "--dp-size", "2"),
        "sizing_not_decimal": s(1, 8, "--prefill-tp", "0x10", "--decode-tp", "-3", "--kv-heads", "1e3"),
        "sizing_model_config": s(1, 8, "--prefill-tp", "4", "--decode-tp", "6", "--model-config", "config.json",
                                 "--max-gpus", "20", "--svg", "plan.svg"),
        "sizing_config_and_heads": s(1, 8, "--prefill-tp", "4", "--decode-tp", "6", "--model-config", "c.json",
                                     "--kv-heads", "8"),
        "sizing_beyond_bound": s(1, 8, "--prefill-tp", "1048577", "--decode-tp", "1", "--mla"),
        "matrix_full": s(1, 8, "--kv-heads", "8", "--max-tp", "128", "--connector", "moriio", "--svg", "m.svg",
                         "--json"),
        "matrix_max_tp_past_bound": s(1, 8, "--mla", "--max-tp", "129"),
        "matrix_attention_dp": s(1, 8, "--kv-heads", "1", "--prefill-adp", "--decode-adp", "--connector", "trtllm"),
        "stages_layers": s(0, 65536, "--prefill-tp", "2", "--decode-tp", "4", "--kv-heads", "8",
                           "--prefill-pp-layers", "16,16", "--decode-pp-layers", "8,8,8,008", "--decode-adp"),
        "stages_even_split": s(1, 4096, "--prefill-tp", "2", "--decode-tp", "4", "--model-config", "c.json",
                               "--prefill-pp", "2", "--decode-pp", "4096", "--prefill-adp"),
        "stages_layer_list_bad": s(0, 65536, "--prefill-tp", "2", "--decode-tp", "4", "--mla",
                                   "--prefill-pp-layers", "1,,2", "--decode-pp-layers", "-1,65537"),
        "stages_list_and_count": s(1, 8, "--prefill-tp", "2", "--decode-tp", "4", "--mla",
                                   "--prefill-pp-layers", "2", "--prefill-pp", "2"),
        "stages_count_without_config": s(1, 8, "--prefill-tp", "2", "--decode-tp", "4", "--mla", "--decode-pp", "2"),
    }


def conform_protocol_seeds():
    """Frames a conformance child may write (conform/.../protocol.hpp), split ones, garbage."""
    def u32s(*values):
        return b"".join(struct.pack("<I", v) for v in values)

    def marshalled_str(text):  # marshal's 'u': a str with a 4-byte length
        data = text.encode("utf-8")
        return b"u" + u32s(len(data)) + data

    # A list as marshal.dumps(..., 2) writes it: 0, -5, None, '[0, 1]', ('ValueError', m), 2**70.
    texts = (b"[" + u32s(6) + b"i" + u32s(0) + b"i" + struct.pack("<i", -5) + b"N" + marshalled_str("[0, 1]") +
             b")\x02" + marshalled_str("ValueError") + marshalled_str("TP sizes must be positive") +
             b"l" + u32s(5) + b"\x00\x00" * 4 + b"\x04\x00")
    # Version 4: short strings ('z', 'Z'), objects that take a reference slot
    # (type | 0x80) and a reference back ('r') to the message.
    texts_refs = (b"\xdb" + u32s(3) + b")\x02\xda\x0aValueError\xfa\x05a\nb c" + b")\x02\xda\x08KeyError" +
                  b"r" + u32s(2) + b"\xfa\x03a\x00b")
    errors_body = u32s(10, 14, 8, 3) + b"ValueErrorTP sizes\nwrongKeyErrora\x00b"
    accented = "caf\u00e9 \u2713".encode("utf-8")
    errors_utf8 = u32s(12, len(accented)) + b"Weird_Error_" + accented
    return {k: (v.encode("latin-1") if isinstance(v, str) else v) for k, v in {
        "bound": "BOUND 1 TpKVTopology.get_target_remote_ranks utils.py:58\n",
        "skipped": "SKIPPED 0 not defined at top level in a.py (looked for\\nx)\n",
        "ready": "READY\n",
        "loaderror": "LOADERROR x.py:7: SyntaxError: expected \x27:\x27\n",
        "texts": b"TEXTS 4 6 %d\n" % len(texts) + texts,
        "texts_references": b"TEXTS 0 3 %d\n" % len(texts_refs) + texts_refs,
        "texts_float": b"TEXTS 0 1 14\n[" + u32s(1) + b"g" + struct.pack("<d", 1.0),
        "texts_split": b"TEXTS 4 6 %d\n" % len(texts) + texts[:-3],
        "errors": b"ERRORS 2 %d\n" % len(errors_body) + errors_body,
        "errors_utf8": b"ERRORS 1 %d\n" % len(errors_utf8) + errors_utf8,
        "errors_lengths_past_body": b"ERRORS 1 10\n" + u32s(1, 9) + b"Kx",
        "outcomes": b"OUTCOMES 3\n\x00\x00\x00\x00\x01\x00\x00\x00\xff\xff\xff\xff",
        "outcomes_split": b"OUTCOMES 2\n\x00\x00\x00",
        "done": "DONE 149792\n",
        "done_leading_zero": "DONE 01\n",
        "failed": "FAILED KeyError: \x27grid\x27\n",
        "huge_count": "TEXTS 0 99999999999999999999 1\nN",
        "garbage": "Traceback (most recent call last):\n",
        "empty": "",
    }.items()}


TEXT_TARGETS = {
    "eval_line": lambda: {k: v.encode() for k, v in eval_line_seeds().items()},
    "cli_options": cli_options_seeds,
}
if (ROOT / "conform" / "CMakeLists.txt").is_file():
    TEXT_TARGETS["conform_protocol"] = conform_protocol_seeds


def all_seeds():
    """{target: {seed name: bytes}}"""
    return {target: make() for target, make in TEXT_TARGETS.items()}


def write():
    for target, seeds in all_seeds().items():
        directory = CORPUS / target / "seed"
        directory.mkdir(parents=True, exist_ok=True)
        for old in directory.iterdir():
            if old.is_file() and old.name not in seeds:
                old.unlink()
        for name, data in seeds.items():
            (directory / name).write_bytes(data)
        print(f"{directory.relative_to(ROOT)}: {len(seeds)} seeds")


def check(_build):
    problems = []
    for target, seeds in all_seeds().items():
        directory = CORPUS / target / "seed"
        committed = {p.name for p in directory.iterdir() if p.is_file()} if directory.is_dir() else set()
        if committed != set(seeds):
            problems.append(f"{directory}: files {sorted(committed ^ set(seeds))} differ from this script's seeds")
        for name, data in seeds.items():
            path = directory / name
            if path.is_file() and path.read_bytes() != data:
                problems.append(f"{path}: bytes differ from what this script writes (rerun it)")
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        return 1
    print(f"seeds: {sum(len(s) for s in all_seeds().values())} text seeds reproducible")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", metavar="BUILD", help="verify the committed seeds against a replay build")
    args = parser.parse_args()
    if args.check:
        return check(args.check)
    write()
    return 0


if __name__ == "__main__":
    sys.exit(main())
