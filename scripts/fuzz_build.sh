#!/usr/bin/env bash
# Builds the libFuzzer binaries of every fuzz target (clang-14, ASan+UBSan)
# into build-libfuzzer/ (TPCHECK_FUZZ_BUILD overrides), configuring it first
# when it is not configured yet.
#
#   scripts/fuzz_build.sh
source "$(dirname "$0")/fuzz_common.sh"
[[ $# -eq 0 ]] || die "usage: scripts/fuzz_build.sh (no arguments; TPCHECK_FUZZ_BUILD=DIR for another build)"
targets=()
for t in $FUZZ_TARGETS; do targets+=("fuzz_$t"); done
build_fuzzers "${targets[@]}"
