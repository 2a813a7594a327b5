# Shared by scripts/fuzz_*.sh (sourced, not run): where things are.
#   TPCHECK_FUZZ_BUILD  the libFuzzer build (default: build-libfuzzer), made by
#     scripts/fuzz_build.sh (build_fuzzers below): clang-14, -DTPCHECK_LIBFUZZER=ON
#     -DTPCHECK_SANITIZE=ON, plus TPCHECK_CMAKE_ARGS from the environment.
#   fuzz-runs/<target>/ the scratch corpus, crashes and logs of local runs (git-ignored).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FUZZ_BUILD="${TPCHECK_FUZZ_BUILD:-$ROOT/build-libfuzzer}"
FUZZ_TARGETS="invariants differential eval_line cli_options conform_protocol"

die() { echo "$(basename "$0"): $*" >&2; exit 2; }

# build_fuzzers TARGET...: configures $FUZZ_BUILD unless it is configured
# already (a reused build keeps its own settings), then builds the targets.
build_fuzzers() {
  if [[ ! -f "$FUZZ_BUILD/CMakeCache.txt" ]]; then
    local extra
    read -r -a extra <<<"${TPCHECK_CMAKE_ARGS:-}"
    CC=clang-14 CXX=clang++-14 cmake -S "$ROOT" -B "$FUZZ_BUILD" -DTPCHECK_LIBFUZZER=ON -DTPCHECK_SANITIZE=ON \
      -DTPCHECK_BUILD_TESTS=OFF -DTPCHECK_BUILD_BENCH=OFF "${extra[@]}" >"$FUZZ_BUILD.configure.log" 2>&1 \
      || die "configuring $FUZZ_BUILD failed, see $FUZZ_BUILD.configure.log"
  fi
  cmake --build "$FUZZ_BUILD" -j2 --target "$@" || die "building $* in $FUZZ_BUILD failed"
}

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
