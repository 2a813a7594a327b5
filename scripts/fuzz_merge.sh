#!/usr/bin/env bash
# Merge the inputs a fuzzing run found into the committed corpus, keeping only
# those that add coverage (libFuzzer -merge=1) beyond corpus/TARGET's seed/,
# regression/ and coverage/.
#
#   scripts/fuzz_merge.sh TARGET
#
# New inputs land in corpus/TARGET/coverage/, named by their SHA-1.
source "$(dirname "$0")/fuzz_common.sh"
[[ $# -eq 1 ]] || die "usage: scripts/fuzz_merge.sh TARGET (targets: $FUZZ_TARGETS)"
target="$1"
check_target "$target"
engine_flags "$target"
[[ -d "$RUN_DIR/corpus" ]] || die "nothing to merge: run scripts/fuzz_run.sh $target SECONDS first"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/base"
# The committed inputs are the base: the merge adds what they do not cover.
for dir in "${CORPUS_DIRS[@]}"; do
  for f in "$dir"/*; do
    [[ -f "$f" && "$f" != *.txt && "$f" != *.md ]] || continue
    cp "$f" "$work/base/committed__$(basename "$dir")__$(basename "$f")"
  done
done
before="$(ls "$work/base" | wc -l)"
"$FUZZER" -merge=1 "${ENGINE_FLAGS[@]}" "$work/base" "$RUN_DIR/corpus" >"$RUN_DIR/merge.log" 2>&1 \
  || die "merge failed, see $RUN_DIR/merge.log"
mkdir -p "$ROOT/corpus/$target/coverage"
added=0
for f in "$work/base"/*; do
  [[ "$(basename "$f")" == committed__* ]] && continue
  cp "$f" "$ROOT/corpus/$target/coverage/$(sha1sum "$f" | cut -c1-40)"
  added=$((added + 1))
done
echo "fuzz_$target: $added inputs add coverage beyond the $before committed ones -> corpus/$target/coverage/"
