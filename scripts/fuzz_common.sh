# Shared by scripts/fuzz_*.sh (sourced, not run): where things are.
#   TPCHECK_FUZZ_BUILD  the libFuzzer build (default: build-libfuzzer), made with
#     CC=clang-14 CXX=clang++-14 cmake -S . -B build-libfuzzer \
#       -DTPCHECK_LIBFUZZER=ON -DTPCHECK_SANITIZE=ON && make -C build-libfuzzer -j2 <fuzz targets>
#   fuzz-runs/<target>/ the scratch corpus, crashes and logs of local runs (git-ignored).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FUZZ_BUILD="${TPCHECK_FUZZ_BUILD:-$ROOT/build-libfuzzer}"
FUZZ_TARGETS="invariants differential eval_line cli_options conform_protocol"

die() { echo "$(basename "$0"): $*" >&2; exit 2; }

# check_target NAME: NAME is a known target whose libFuzzer binary is built.
check_target() {
  local name="$1"
  [[ " $FUZZ_TARGETS " == *" $name "* ]] || die "unknown target '$name' (targets: $FUZZ_TARGETS)"
  FUZZER="$FUZZ_BUILD/fuzz/fuzz_$name"
  [[ -x "$FUZZER" ]] || die "no fuzzer at $FUZZER: build it with -DTPCHECK_LIBFUZZER=ON (see scripts/fuzz_common.sh) or set TPCHECK_FUZZ_BUILD"
  "$FUZZER" -help=1 2>&1 | grep max_total_time >/dev/null || die "$FUZZER is a replay build, not a libFuzzer one (-DTPCHECK_LIBFUZZER=ON)"
  RUN_DIR="$ROOT/fuzz-runs/$name"
  CORPUS_DIRS=()
  local sub
  for sub in seed regression coverage; do
    [[ -d "$ROOT/corpus/$name/$sub" ]] && CORPUS_DIRS+=("$ROOT/corpus/$name/$sub")
  done
  return 0
}

# engine_flags NAME: the -max_len flag from fuzz/options, and -dict when fuzz/dicts has one.
engine_flags() {
  local name="$1" options="$ROOT/fuzz/options/fuzz_$1.options" dict
  ENGINE_FLAGS=()
  if [[ -f "$options" ]]; then
    local max_len
    max_len="$(sed -n 's/^max_len *= *\([0-9]*\)$/\1/p' "$options")"
    [[ -n "$max_len" ]] && ENGINE_FLAGS+=("-max_len=$max_len")
  fi
  dict="$ROOT/fuzz/dicts/$name.dict"
  [[ -f "$dict" ]] && ENGINE_FLAGS+=("-dict=$dict")
  return 0
}
