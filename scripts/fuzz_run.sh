#!/usr/bin/env bash
# Fuzz one target for a number of seconds, on one core.
#
#   scripts/fuzz_run.sh TARGET SECONDS
#
# Starts from corpus/TARGET/{seed,regression,coverage}; new inputs go to
# fuzz-runs/TARGET/corpus (merge them with scripts/fuzz_merge.sh), a crash to
# fuzz-runs/TARGET/crashes/ (promote it with scripts/fuzz_promote.sh). Prints
# the executions per second at the end. Exit status: 0 clean, 1 a crash.
source "$(dirname "$0")/fuzz_common.sh"
[[ $# -eq 2 ]] || die "usage: scripts/fuzz_run.sh TARGET SECONDS (targets: $FUZZ_TARGETS)"
target="$1" seconds="$2"
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || die "SECONDS must be a positive whole number, got '$seconds'"
check_target "$target"
engine_flags "$target"
mkdir -p "$RUN_DIR/corpus" "$RUN_DIR/crashes"
log="$RUN_DIR/last.log"
status=0
# -timeout: an input slower than 10 s is a bug (every input is meant to be fast).
"$FUZZER" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$RUN_DIR/crashes/" "${ENGINE_FLAGS[@]}" \
  "$RUN_DIR/corpus" "${CORPUS_DIRS[@]}" >"$log" 2>&1 || status=$?
runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
cov="$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)"
if [[ $status -ne 0 ]]; then
  crash="$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)"
  grep -E '^tpcheck fuzz|SUMMARY|ERROR' "$log" | head -5 >&2 || true
  echo "fuzz_$target: CRASH after ${runs:-?} runs: ${crash:-see $log}" >&2
  echo "promote it: scripts/fuzz_promote.sh $target ${crash:-CRASH_FILE}" >&2
  exit 1
fi
echo "fuzz_$target: clean for ${seconds}s, ${runs} runs ($(( ${runs:-0} / seconds )) exec/s), ${cov}; log $log"
