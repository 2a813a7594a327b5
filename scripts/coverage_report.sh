#!/usr/bin/env bash
# Source-based line and branch coverage of the model (lib/) reached by
# replaying the committed corpus through every fuzz target.
#
#   scripts/coverage_report.sh [--min-lines PERCENT] [BUILD_DIR]
#
# BUILD_DIR (default build-coverage) is configured here with clang-14 and
# -fprofile-instr-generate -fcoverage-mapping (replay build, no sanitizers).
# Prints llvm-cov's per-file summary of lib/ and writes an HTML report to
# BUILD_DIR/coverage-html/index.html. Needs clang-14, llvm-profdata-14, llvm-cov-14.
# The last line is `coverage: lib/ lines P% of N`; with --min-lines (the
# nightly job: 97.65) the exit status is 1 when P is below PERCENT,
# so a change that moves code out of the corpus's reach fails a job instead of
# going unnoticed.
#
# llvm-cov warns that some functions "have mismatched data" (22 on
# 2026-12-01). They are inline functions of a header that one binary never
# calls (evaluate_int64 in all but fuzz_eval_line, TextPiece's std::string
# constructor, widen and decimal of narrow types in the parser targets...):
# clang still maps such a function in that binary, without counters, and
# llvm-cov, finding its name in the merged profile under the hash of the
# binary that ran it, warns and skips the unused copy. The lines are counted
# from the copy that ran; each binary with its own profile alone gives no
# warning. Harmless: nothing to fix in the build.
source "$(dirname "$0")/fuzz_common.sh"
usage="usage: scripts/coverage_report.sh [--min-lines PERCENT] [BUILD_DIR]"
min_lines=""
if [[ "${1:-}" == "--min-lines" ]]; then
  [[ $# -ge 2 && "$2" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--min-lines needs a percent such as 97.65; $usage"
  min_lines="$2"
  shift 2
fi
[[ $# -le 1 && "${1:-}" != -* ]] || die "$usage"
build="${1:-$ROOT/build-coverage}"
for tool in clang++-14 llvm-profdata-14 llvm-cov-14; do
  command -v "$tool" >/dev/null || die "$tool not found (apt-get install clang-14 llvm-14)"
done
flags="-fprofile-instr-generate -fcoverage-mapping"
CC=clang-14 CXX=clang++-14 cmake -S "$ROOT" -B "$build" -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" -DTPCHECK_LIBFUZZER=OFF -DTPCHECK_FUZZ_LDFLAGS= \
  -DTPCHECK_SANITIZE=OFF >"$build.configure.log" 2>&1 || die "configure failed, see $build.configure.log"
binaries=()
for target in $FUZZ_TARGETS; do
  if make -C "$build" -j2 "fuzz_$target" >"$build.make-$target.log" 2>&1; then
    binaries+=("$build/fuzz/fuzz_$target")
  else
    echo "coverage_report.sh: WARNING: fuzz_$target did not build, its replay is left out (see $build.make-$target.log)" >&2
  fi
done
[[ ${#binaries[@]} -gt 0 ]] || die "no fuzz target built"
profiles="$build/coverage-profiles"
rm -rf "$profiles" && mkdir -p "$profiles"
for bin in "${binaries[@]}"; do
  LLVM_PROFILE_FILE="$profiles/$(basename "$bin")-%p.profraw" "$bin" "$ROOT/corpus" >/dev/null \
    || die "$(basename "$bin") failed on the corpus: run ctest -L corpus"
done
llvm-profdata-14 merge -sparse "$profiles"/*.profraw -o "$profiles/corpus.profdata"
objects=()
for bin in "${binaries[@]:1}"; do objects+=(-object "$bin"); done
llvm-cov-14 report "${binaries[0]}" "${objects[@]}" -instr-profile="$profiles/corpus.profdata" \
  -show-branch-summary "$ROOT/lib" | tee "$profiles/report.txt"
llvm-cov-14 show "${binaries[0]}" "${objects[@]}" -instr-profile="$profiles/corpus.profdata" \
  -format=html -show-branches=count -output-dir="$build/coverage-html" "$ROOT/lib"
echo "HTML report: $build/coverage-html/index.html"
# The TOTAL row: regions (3 columns), functions (3), then lines: count, missed, percent.
read -r lines percent <<<"$(awk '$1 == "TOTAL" { sub("%", "", $10); print $8, $10 }' "$profiles/report.txt")"
[[ -n "${percent:-}" ]] || die "llvm-cov printed no TOTAL row (see $profiles/report.txt)"
echo "coverage: lib/ lines ${percent}% of $lines${min_lines:+ (at least $min_lines% asked)}"
if [[ -n "$min_lines" ]] && awk -v p="$percent" -v m="$min_lines" 'BEGIN { exit !(p < m) }'; then
  echo "coverage_report.sh: lib/'s line coverage from the corpus, ${percent}%, is below $min_lines%" >&2
  exit 1
fi
