#!/usr/bin/env python3
"""Writes the hand-chosen seed inputs of every fuzz target (corpus/<target>/seed/).

Each seed is a readable list of named fields, encoded in the byte format of
fuzz/fuzz_input.hpp (9-byte integer fields: a mode byte and a little-endian
64-bit payload; one-byte flags and choices). The text targets (eval_line,
cli_options) take their seeds as text.

  scripts/fuzz_seeds.py                 rewrite corpus/*/seed/ from this file
  scripts/fuzz_seeds.py --check BUILD   check that the committed seeds are
                                        exactly what this file writes, and
                                        that the replay binaries in
                                        BUILD/fuzz decode every binary seed to
                                        the fields named here (--describe)

Standard library only; python3 >= 3.9.
"""

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
MASK64 = (1 << 64) - 1
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1

# --- the field encodings of fuzz/fuzz_input.cpp ------------------------------


def _field(mode, payload):
    return bytes([mode]) + (payload & MASK64).to_bytes(8, "little")


def _integer_mode(v, allow_high_nibble=True):
    """(mode, payload) whose integer rule yields exactly v."""
    if 0 <= v <= 8:
        return 0, v
    if 0 <= v <= 1024:
        return 6, v
    if -9 <= v <= -1:
        return 13, -1 - v
    if INT64_MIN <= v <= INT64_MAX:
        return 10, v
    for high in range(16 if allow_high_nibble else 1):
        shift = 64 + 4 * high
        if v % (1 << shift) == 0 and INT64_MIN <= v >> shift <= INT64_MAX:
            return 12 | (high << 4), v >> shift
    magnitude, minus = abs(v), v < 0
    if minus and not allow_high_nibble:
        raise ValueError(f"{v} has no encoding without a high nibble")
    for delta in (-1, 0, 1):
        e = (magnitude - delta).bit_length() - 1
        if 0 <= e < 200 and (1 << e) + delta == magnitude:
            # x % 200 is the exponent and (x >> 8) % 3 - 1 the offset.
            x = next(x for x in range(e, 1 << 20, 200) if (x >> 8) % 3 == delta + 1)
            return 14 | (0x80 if minus else 0), x
    raise ValueError(f"no exact encoding for {v}")


class Field:
    def __init__(self, name, value, data):
        self.name, self.value, self.data = name, value, data

    def describe(self):
        return f"{self.name}={self.value}"


def integer(name, v):
    """FuzzInput::integer (and ::int64 for values that fit)."""
    return Field(name, v, _field(*_integer_mode(v)))


def rank(name, v):
    """FuzzInput::rank_below: rules 14-15 read the high nibble as an integer rule."""
    mode, payload = _integer_mode(v, allow_high_nibble=False)
    return Field(name, v, _field((mode << 4) | 14, payload))


def heads(name, v):
    """FuzzInput::heads_for: rules 12-15 read the high nibble as an integer rule."""
    mode, payload = _integer_mode(v, allow_high_nibble=False)
    return Field(name, v, _field((mode << 4) | 12, payload))


def flag(name, on):
    return Field(name, 1 if on else 0, bytes([1 if on else 0]))


OPERATIONS = ["remote_rank", "general_rank", "tp_ratio", "window", "window_span", "heads", "holders",
              "head_compatible", "kv_heads_guard", "kv_heads_guard_strict", "plan", "plan_copy_count",
              "single_source_plan", "readers", "single_readers", "port_offset", "host_index", "port_range",
              "moriio_accepts", "nixl_accepts", "mooncake_accepts", "general_accepts"]


def operation(name):
    return Field("op", name, bytes([OPERATIONS.index(name)]))


# --- the seeds ---------------------------------------------------------------

P63 = 1 << 63


def rank_maps_seeds():
    def s(L, R, r, q):
        return [integer("L", L), integer("R", R), rank("r", r), rank("q", q)]
    return {
        "equal_sizes": s(4, 4, 2, 1),
        "local_larger_8_to_4": s(8, 4, 5, 3),
        "remote_larger_4_to_8": s(4, 8, 3, 7),
        "remote_not_multiple_4_6": s(4, 6, 0, 5),
        "local_not_multiple_6_4": s(6, 4, 0, 0),
        "rank_error_before_divisibility": s(4, 6, 5, 0),
        "rank_negative": s(4, 2, -1, 0),
        "rank_at_bound": s(8, 2, 8, 2),
        "sizes_not_positive": s(0, 6, -1, 0),
        "sizes_negative": s(-3, -7, 0, 0),
        "non_divisible_1000_7": s(1000, 7, 999, 6),
        "non_divisible_7_1000": s(7, 1000, 6, 999),
        "int64_max_to_1": s(INT64_MAX, 1, INT64_MAX - 1, 0),
        "int64_large_divisible": s(1 << 62, 1 << 61, (1 << 62) - 1, (1 << 61) - 1),
        "int64_products_overflow": s(INT64_MAX - 1, INT64_MAX, INT64_MAX - 2, INT64_MAX - 1),
        "wide_window_1_to_2p40": s(1, 1 << 40, 0, (1 << 40) - 1),
        "beyond_64_divisible": s(1 << 100, 1 << 64, (1 << 100) - 1, 12345),
        "beyond_64_non_divisible": s((1 << 100) + 1, 3 << 64, 1 << 99, 7),
        "int64_min_sizes": s(INT64_MIN, INT64_MIN, 0, 0),
    }


def heads_counts_ports_seeds():
    def s(L, R, H, mla, h=0, p=0, dp=0, t=0, dp_size=1, hosts=1, base=1000):
        return [integer("L", L), integer("R", R), heads("H", H), flag("mla", mla), rank("h", h), rank("p", p),
                integer("dp", dp), rank("t", t), integer("dp_size", dp_size), integer("hosts", hosts),
                integer("base", base)]
    return {
        "guard_equal_sizes_4_4_8": s(4, 4, 8, False, h=7, p=3, t=3),
        "guard_replicated_8_4_4": s(8, 4, 4, False, h=3, p=6, dp=1, t=2, dp_size=2, hosts=2),
        "guard_replicated_4_8_4": s(4, 8, 4, False, h=2, p=1, t=7, dp_size=2, hosts=2),
        "guard_mla_2_4_4": s(2, 4, 4, True, h=1, p=1, t=3),
        "guard_rejects_4_2_4": s(4, 2, 4, False, h=3, p=2, t=1),
        "guard_rejects_2_4_4": s(2, 4, 4, False, h=0, p=1, t=2),
        "guard_upstream_accepts_0_0_5": s(0, 0, 5, False, h=4),
        "guard_not_positive": s(3, 5, 0, False),
        "counts_producer_without_readers_4_2": s(4, 2, 2, False, h=1, p=3, t=1),
        "counts_consumer_not_multiple_4_6": s(4, 6, 2, False, p=3, t=5),
        "counts_producer_not_multiple_6_4": s(6, 4, 2, False, p=5, t=3),
        "counts_rank_out_of_range": s(4, 8, 8, False, p=4, t=8),
        "ports_known_3_5_16": s(16, 16, 16, False, h=5, p=5, dp=3, t=5, dp_size=4, hosts=4, base=50000),
        "ports_tp_size_zero": s(8, 0, 8, False, dp=1, t=0),
        "ports_dp_negative": s(4, 4, 4, False, dp=-1, t=1),
        "ports_overflow_65535": s(8, 16, 16, False, dp=7, t=15, dp_size=8, hosts=2, base=65500),
        "ports_fit_exactly": s(4, 4, 4, False, dp=1, t=3, dp_size=2, base=65528),
        "hosts_not_spread_8_over_3": s(8, 4, 8, False, p=7, t=3, hosts=3),
        "hosts_more_than_ranks": s(2, 4, 4, False, t=3, hosts=8),
        "int64_huge_ports": s(INT64_MAX, INT64_MAX, INT64_MAX, False, h=1 << 62, p=1 << 62, dp=INT64_MAX,
                              t=INT64_MAX - 1, dp_size=INT64_MAX, hosts=INT64_MAX, base=INT64_MAX),
        "beyond_64_sizes": s(1 << 90, 1 << 80, 1 << 100, False, h=(1 << 100) - 1, p=(1 << 90) - 1, dp=1 << 70,
                             t=(1 << 80) - 1, dp_size=1 << 64, hosts=1 << 66, base=1 << 64),
        "beyond_64_mla": s(3 << 64, 1 << 64, 1 << 64, True, t=(1 << 64) - 1, hosts=1 << 64),
    }


def plan_seeds():
    def s(P, D, H, mla, d=0):
        return [integer("P", P), integer("D", D), heads("H", H), flag("mla", mla), rank("d", d)]
    return {
        "nixl_example_4_2_h2": s(4, 2, 2, False, 1),
        "non_divisible_4_6_h2": s(4, 6, 2, False, 5),
        "non_divisible_4_6_mla": s(4, 6, 8, True, 3),
        "two_sources_4_6_h12": s(4, 6, 12, False, 1),
        "decode_larger_2_4_h8": s(2, 4, 8, False, 3),
        "prefill_larger_8_2_h16": s(8, 2, 16, False, 1),
        "replicated_8_4_h2": s(8, 4, 2, False, 3),
        "replicated_both_16_8_h1": s(16, 8, 1, False, 7),
        "equal_sizes_4_4_h8": s(4, 4, 8, False, 2),
        "heads_not_shardable_4_6_h5": s(4, 6, 5, False, 0),
        "heads_zero": s(4, 4, 0, False, 0),
        "heads_zero_mla": s(4, 2, 0, True, 1),
        "prefill_size_zero": s(0, 4, 4, False, 0),
        "decode_size_negative": s(4, -2, 4, False, 0),
        "decode_rank_out_of_range": s(4, 8, 8, False, 8),
        "sweep_60_64_h960": s(60, 64, 960, False, 63),
        "sweep_replicated_48_64_h16": s(48, 64, 16, False, 5),
        "sampled_256_192_h64": s(256, 192, 64, False, 191),
        "sampled_250_256_h32000": s(250, 256, 32000, False, 17),
        "large_2p40_2p39_h2p41": s(1 << 40, 1 << 39, 1 << 41, False, (1 << 39) - 1),
        "large_replicated_2p40_3": s(3 << 40, 3, 3, False, 2),
        "long_plan_not_listed": s(1 << 30, 1, 1 << 30, False, 0),
        "beyond_64_split_heads": s(1, 1, 1 << 100, False, 0),
        "beyond_64_sizes": s(1 << 100, 1 << 99, 1 << 101, False, (1 << 99) - 1),
        "beyond_64_mla": s(3 << 64, 1 << 64, 1, True, 12345),
    }


def differential_seeds():
    def s(op, *args):
        fields = [operation(op)]
        params = {"remote_rank": "r L R", "general_rank": "r L R", "tp_ratio": "L R", "window": "r L R",
                  "heads": "r T H", "kv_heads_guard": "L R H MLA", "kv_heads_guard_strict": "L R H MLA",
                  "plan": "d P D H MLA", "readers": "p P D H MLA", "single_readers": "p P D",
                  "port_offset": "DP_RANK TP_RANK TP_SIZE", "host_index": "q T HOSTS"}[op].split()
        assert len(params) == len(args), op
        for name, v in zip(params, args):
            fields.append(flag(name, v) if name == "MLA" else integer(name, v))
        return fields
    return {
        "remote_rank_8_4": s("remote_rank", 5, 8, 4),
        "remote_rank_error": s("remote_rank", 0, 4, 6),
        "general_rank_large": s("general_rank", INT64_MAX - 1, INT64_MAX, INT64_MAX - 1),
        "tp_ratio_int64_min": s("tp_ratio", INT64_MIN, -1),
        "tp_ratio_negative_ratio": s("tp_ratio", 2, 1 << 62),
        "window_2_of_4": s("window", 0, 2, 4),
        "window_too_long": s("window", 0, 1, 1 << 40),
        "heads_large": s("heads", INT64_MAX - 1, INT64_MAX, 1),
        "guard_rejects": s("kv_heads_guard", 4, 2, 4, 0),
        "guard_strict_mla": s("kv_heads_guard_strict", 0, 0, 5, 1),
        "plan_two_sources": s("plan", 1, 4, 6, 12, 0),
        "plan_large": s("plan", (1 << 61) - 1, 1 << 62, 1 << 61, 1 << 62, 0),
        "readers_mla": s("readers", 3, 4, 6, 0, 1),
        "readers_large": s("readers", (1 << 62) - 1, 1 << 62, 3 << 61, 1, 0),
        "single_readers_zero": s("single_readers", 3, 4, 2),
        "port_offset_overflows_int64": s("port_offset", INT64_MAX, INT64_MAX - 1, INT64_MAX),
        "port_offset_unknown_tp": s("port_offset", 0, 0, 0),
        "host_index_not_spread": s("host_index", 7, 8, 3),
        "host_index_min": s("host_index", INT64_MIN, INT64_MIN, INT64_MIN),
    }


def eval_line_seeds():
    big = "9" * 40
    return {
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
    }


def cli_options_seeds():
    def s(lo, hi, *args):
        fields = [integer("lo", lo), integer("hi", hi)]
        return b"".join(f.data for f in fields) + "\n".join(args).encode()
    return {
        "all_options": s(1, 4096, "--max-tp", "8", "--max-heads", "16", "--threads", "2", "--json"),
        "help": s(1, 10, "--help"),
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
    }


def fields_dictionary():
    """The libFuzzer dictionary of the binary targets: whole 9-byte fields with
    values the model branches on, so a mutation can drop one in place."""
    entries = {
        "int64 max": integer("v", INT64_MAX), "int64 min": integer("v", INT64_MIN),
        "int64 max - 1": integer("v", INT64_MAX - 1), "2^62": integer("v", 1 << 62),
        "2^64": integer("v", 1 << 64), "2^100 + 1": integer("v", (1 << 100) + 1),
        "-(2^70)": integer("v", -(1 << 70)), "1001": integer("v", 1001), "1024": integer("v", 1024),
        "65535": integer("v", 65535), "-1": integer("v", -1),
        "rank: last": Field("r", None, _field(11, 0)), "rank: just past the end": Field("r", None, _field(12, 0)),
        "rank: -1": Field("r", None, _field(13, 0)),
        "heads: gcd of both sides": Field("H", None, _field(0, 0)),
        "heads: lcm of both sides": Field("H", None, _field(4, 0)),
    }
    for k in (2, 3, 7):
        entries[f"previous * {k}"] = Field("v", None, _field(8, k - 1))
        entries[f"previous / gcd(previous, {k})"] = Field("v", None, _field(9, k - 1))
    for delta in (-1, 1):
        entries[f"previous {delta:+d}"] = Field("v", None, _field(11, delta + 2))
    lines = ["# libFuzzer dictionary of the binary fuzz targets, written by scripts/fuzz_seeds.py:",
             "# whole fields in the format of fuzz/fuzz_input.hpp."]
    for what, f in entries.items():
        lines.append(f"# {what}")
        lines.append('"' + "".join(f"\\x{b:02x}" for b in f.data) + '"')
    return "\n".join(lines) + "\n"


DICTIONARY = ROOT / "fuzz" / "dicts" / "fields.dict"

BINARY_TARGETS = {
    "rank_maps": rank_maps_seeds,
    "heads_counts_ports": heads_counts_ports_seeds,
    "plan": plan_seeds,
    "differential": differential_seeds,
}
def conform_protocol_seeds():
    """Lines a conformance child may print: replies, escapes, handshakes, garbage."""
    return {k: v.encode() for k, v in {
        "reply_value": "0 V 1",
        "reply_list": "3 V [0, 1]",
        "reply_error": "12 E ValueError TP sizes must be positive",
        "reply_escapes": "3 V [0, 1]\\n\\\\",
        "reply_no_class": "4 E  message",
        "reply_negative_seq": "-1 V 1",
        "reply_huge_seq": "99999999999999999999999 V 1",
        "bound": "BOUND get_port_offset a.py:3",
        "loaderror": "LOADERROR x.py:7: SyntaxError: expected \\x27:\\x27\\n",
        "garbage": "Traceback (most recent call last):",
        "empty": "",
    }.items()}


TEXT_TARGETS = {
    "eval_line": lambda: {k: v.encode() for k, v in eval_line_seeds().items()},
    "cli_options": cli_options_seeds,
}
if (ROOT / "conform" / "CMakeLists.txt").is_file():
    TEXT_TARGETS["conform_protocol"] = conform_protocol_seeds


def all_seeds():
    """{target: {seed name: (bytes, expected --describe trace or None)}}"""
    out = {}
    for target, make in BINARY_TARGETS.items():
        out[target] = {name: (b"".join(f.data for f in fields), " ".join(f.describe() for f in fields))
                       for name, fields in make().items()}
    for target, make in TEXT_TARGETS.items():
        out[target] = {name: (data, None) for name, data in make().items()}
    return out


def write():
    for target, seeds in all_seeds().items():
        directory = CORPUS / target / "seed"
        directory.mkdir(parents=True, exist_ok=True)
        for old in directory.iterdir():
            if old.is_file() and old.name not in seeds:
                old.unlink()
        for name, (data, _) in seeds.items():
            (directory / name).write_bytes(data)
        print(f"{directory.relative_to(ROOT)}: {len(seeds)} seeds")
    DICTIONARY.write_text(fields_dictionary())
    print(f"{DICTIONARY.relative_to(ROOT)}: written")


def check(build):
    problems = []
    for target, seeds in all_seeds().items():
        directory = CORPUS / target / "seed"
        committed = {p.name for p in directory.iterdir() if p.is_file()} if directory.is_dir() else set()
        if committed != set(seeds):
            problems.append(f"{directory}: files {sorted(committed ^ set(seeds))} differ from this script's seeds")
        for name, (data, expected) in seeds.items():
            path = directory / name
            if path.is_file() and path.read_bytes() != data:
                problems.append(f"{path}: bytes differ from what this script writes (rerun it)")
            if expected is None or not path.is_file():
                continue
            binary = Path(build) / "fuzz" / f"fuzz_{target}"
            run = subprocess.run([str(binary), "--describe", str(path)], capture_output=True, text=True)
            if run.returncode != 0:
                problems.append(f"{path}: replay failed ({run.returncode}): {run.stderr.strip()}")
                continue
            seen = run.stdout.splitlines()[0].split(": ", 1)[1] if run.stdout else ""
            if seen != expected:
                problems.append(f"{path}: decodes to '{seen}', the script means '{expected}'")
    if not DICTIONARY.is_file() or DICTIONARY.read_text() != fields_dictionary():
        problems.append(f"{DICTIONARY}: differs from what this script writes (rerun it)")
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        return 1
    print(f"seeds: {sum(len(s) for s in all_seeds().values())} seeds reproducible and decoded as named")
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
