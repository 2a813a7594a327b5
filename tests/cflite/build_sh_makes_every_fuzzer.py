#!/usr/bin/env python3
"""ClusterFuzzLite's build.sh, run here as the engine runs it, makes every fuzzer.

usage: build_sh_makes_every_fuzzer.py SOURCE_DIR WORK_DIR TARGET...

Runs .clusterfuzzlite/build.sh with the engine's variables (CC, CXX, CFLAGS,
CXXFLAGS with ASan, UBSan and fuzzer-no-link, LIB_FUZZING_ENGINE=-fsanitize=fuzzer,
SRC, WORK, OUT) and clang-14, into a fresh OUT; WORK_DIR keeps its build
between runs. Then checks that OUT holds, for each TARGET and nothing else:
  - fuzz_<t>, a libFuzzer binary (it knows -max_total_time);
  - fuzz_<t>_seed_corpus.zip with exactly the committed inputs of
    corpus/<t>/{seed,regression,coverage} (not the .txt/.md notes), byte for byte;
  - fuzz_<t>.options, the committed one; fuzz_<t>.dict exactly when fuzz/dicts/<t>.dict exists;
and that each fuzzer runs its seed corpus clean (-runs=0). The configure must
have left GoogleTest, RapidCheck and Google Benchmark out, as in the image.
Standard library only.
"""
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

CORPUS_KINDS = ("seed", "regression", "coverage")


def committed_inputs(source, target):
    inputs = {}
    for kind in CORPUS_KINDS:
        directory = source / "corpus" / target / kind
        if not directory.is_dir():
            continue
        for f in sorted(directory.rglob("*")):
            if f.is_file() and f.suffix not in (".txt", ".md"):
                inputs[f"{kind}_{f.name}"] = f.read_bytes()
    return inputs


def check_target(source, out, target, problems):
    name = f"fuzz_{target}"
    fuzzer = out / name
    if not (fuzzer.is_file() and os.access(fuzzer, os.X_OK)):
        problems.append(f"{name}: no executable in OUT")
        return
    helped = subprocess.run([fuzzer, "-help=1"], capture_output=True, text=True, timeout=60)
    if "max_total_time" not in helped.stdout + helped.stderr:
        problems.append(f"{name}: not linked with libFuzzer (-help=1 does not list -max_total_time)")

    zipped = out / f"{name}_seed_corpus.zip"
    expected = committed_inputs(source, target)
    if not expected:
        problems.append(f"{name}: corpus/{target} has no committed inputs to zip")
    elif not zipped.is_file():
        problems.append(f"{name}: no {zipped.name}")
    else:
        with zipfile.ZipFile(zipped) as z:
            found = {Path(i.filename).name: z.read(i) for i in z.infolist() if not i.is_dir()}
        if set(found) != set(expected):
            missing, extra = sorted(set(expected) - set(found)), sorted(set(found) - set(expected))
            problems.append(f"{zipped.name}: missing {missing[:5]}, unexpected {extra[:5]}")
        elif any(found[k] != expected[k] for k in expected):
            problems.append(f"{zipped.name}: an input differs from the committed one")
        else:
            with tempfile.TemporaryDirectory() as unpacked:
                with zipfile.ZipFile(zipped) as z:
                    z.extractall(unpacked)
                ran = subprocess.run([fuzzer, "-runs=0", unpacked], capture_output=True, text=True, timeout=600)
                if ran.returncode != 0:
                    problems.append(f"{name}: its seed corpus does not run clean:\n{ran.stderr[-2000:]}")

    options = out / f"{name}.options"
    committed_options = source / "fuzz" / "options" / f"{name}.options"
    if not options.is_file() or options.read_bytes() != committed_options.read_bytes():
        problems.append(f"{name}: {options.name} missing or not the committed {committed_options}")
    dictionary = out / f"{name}.dict"
    committed_dict = source / "fuzz" / "dicts" / f"{target}.dict"
    if committed_dict.is_file() != dictionary.is_file():
        problems.append(f"{name}: {dictionary.name} {'missing' if committed_dict.is_file() else 'unexpected'}")
    elif committed_dict.is_file() and dictionary.read_bytes() != committed_dict.read_bytes():
        problems.append(f"{name}: {dictionary.name} is not the committed {committed_dict}")


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    source, work, targets = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve(), sys.argv[3:]
    work.mkdir(parents=True, exist_ok=True)
    flags = "-O1 -gline-tables-only -fsanitize=address,undefined -fsanitize=fuzzer-no-link"
    with tempfile.TemporaryDirectory() as out_dir:
        out = Path(out_dir)
        env = {**os.environ, "CC": "clang-14", "CXX": "clang++-14", "CFLAGS": flags, "CXXFLAGS": flags,
               "LIB_FUZZING_ENGINE": "-fsanitize=fuzzer", "SRC": str(source.parent), "WORK": str(work),
               "OUT": str(out), "TPCHECK_SRC": str(source)}
        built = subprocess.run([source / ".clusterfuzzlite" / "build.sh"], env=env, capture_output=True,
                               text=True, timeout=3000)
        log = built.stdout + built.stderr
        if built.returncode != 0:
            print(f"build.sh failed ({built.returncode}):\n{log[-4000:]}", file=sys.stderr)
            return 1
        problems = []
        for skipped in ("GoogleTest binaries", "RapidCheck properties", "benchmarks"):
            if f"tpcheck: not built: the {skipped}" not in log:
                problems.append(f"the configure did not leave out the {skipped}: the packages were not disabled")
        for target in targets:
            check_target(source, out, target, problems)
        expected = {f"fuzz_{t}" for t in targets}
        strays = sorted(p.name for p in out.iterdir() if p.name.startswith("fuzz_") and "." not in p.name
                        and p.name not in expected)
        if strays:
            problems.append(f"OUT has fuzzers nobody declared: {strays}")
        for p in problems:
            print(p, file=sys.stderr)
        if problems:
            return 1
        print(f"build.sh: {len(targets)} fuzzers, each with its seed corpus, options and dictionary; "
              "every seed corpus runs clean")
        return 0


if __name__ == "__main__":
    sys.exit(main())
