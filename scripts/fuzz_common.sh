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
  corpus_dirs "$name"
}

# corpus_dirs NAME: CORPUS_DIRS, the committed corpus directories of target NAME.
corpus_dirs() {
  CORPUS_DIRS=()
  local sub
  for sub in seed regression coverage; do
    [[ -d "$ROOT/corpus/$1/$sub" ]] && CORPUS_DIRS+=("$ROOT/corpus/$1/$sub")
  done
  return 0
}

# engine_flags NAME: every option of fuzz/options/fuzz_NAME.options as a
# libFuzzer flag ("max_len = 256" gives -max_len=256), as ClusterFuzzLite
# passes them, and -dict when fuzz/dicts has one.
engine_flags() {
  local name="$1" options="$ROOT/fuzz/options/fuzz_$1.options" dict
  ENGINE_FLAGS=()
  if [[ -f "$options" ]]; then
    local option
    while IFS= read -r option; do
      ENGINE_FLAGS+=("$option")
    done < <(sed -n 's/^\([a-z_]*\) *= *\([0-9A-Za-z_.]*\) *$/-\1=\2/p' "$options")
  fi
  dict="$ROOT/fuzz/dicts/$name.dict"
  [[ -f "$dict" ]] && ENGINE_FLAGS+=("-dict=$dict")
  return 0
}

# exec_per_second SCRATCH SECONDS BINARY [FLAGS...] [-- DIRS...]: libFuzzer's
# executions over SECONDS, per second of the CPU time the fuzzer used (user +
# system, so a machine shared with other jobs does not make a target look
# slow), and per second of wall time, printed as "CPU-rate WALL-rate". New
# inputs go to SCRATCH/new, the first directory libFuzzer is given, never the
# committed corpus; SCRATCH also holds the log. A crash exits 1.
exec_per_second() {
  local scratch="$1" seconds="$2" binary="$3" flags=()
  shift 3
  while [[ $# -gt 0 && "$1" != "--" ]]; do flags+=("$1"); shift; done
  [[ $# -gt 0 ]] && shift
  local log="$scratch/log"
  rm -rf "$scratch/new" && mkdir -p "$scratch/new"
  local status=0 TIMEFORMAT='%U %S'
  { time "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$scratch/" "${flags[@]}" "$scratch/new" "$@" >"$log" 2>&1 || status=$?; } 2>"$scratch/cpu"
  if [[ $status -ne 0 ]]; then
    grep -E '^tpcheck fuzz|SUMMARY|ERROR' "$log" | head -5 >&2 || true
    echo "$(basename "$0"): $(basename "$binary") crashed" >&2
    exit 1
  fi
  local runs wall
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
  wall="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)"
  awk -v n="${runs:-0}" -v w="${wall:-0}" '{ cpu = $1 + $2; printf "%d %d\n", (cpu > 0 ? n / cpu : 0), w }' "$scratch/cpu"
}
