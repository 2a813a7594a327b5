#!/usr/bin/env bash
# Merge the inputs a fuzzing run found into the committed corpus, keeping only
# those that add coverage (libFuzzer -merge=1) beyond corpus/TARGET's seed/,
# regression/ and coverage/.
#
#   scripts/fuzz_merge.sh TARGET
#
# New inputs land in corpus/TARGET/coverage/, named by their SHA-1; those of
# the registry targets (invariants, differential) first select their entry
# (operation) by its name's key and are named "<what they select>.<hash>"
# (fuzz/registry_names.cpp), so that entries added later move none of them.
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
mkdir -p "$ROOT/corpus/$target/coverage" "$work/new"
added=0
for f in "$work/base"/*; do
  [[ "$(basename "$f")" == committed__* ]] && continue
  cp "$f" "$work/new/$(sha1sum "$f" | cut -c1-40)"
  added=$((added + 1))
done
if [[ "$target" == invariants || "$target" == differential ]]; then
  TPCHECK_FUZZ_NAME_INPUTS="$work/new" "$FUZZER" >"$RUN_DIR/name.log" 2>&1 \
    || die "naming the new inputs failed, see $RUN_DIR/name.log"
fi
find "$work/new" -type f -exec cp {} "$ROOT/corpus/$target/coverage/" +
echo "fuzz_$target: $added inputs add coverage beyond the $before committed ones -> corpus/$target/coverage/"
