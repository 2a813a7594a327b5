#!/bin/bash -eu
# Builds every tpcheck fuzz target for ClusterFuzzLite (or OSS-Fuzz) into $OUT,
# each with its seed corpus (fuzz_<t>_seed_corpus.zip: corpus/<t>/seed,
# regression and coverage, without the .txt notes), dictionary (.dict, for the
# parser targets) and libFuzzer options (.options).
#
# The engine sets CC, CXX, CFLAGS, CXXFLAGS (sanitizer and coverage flags),
# LIB_FUZZING_ENGINE (the engine's link flags), SRC and OUT. To try it without
# Docker, from the repository root:
#   SRC=$PWD/.. OUT=/tmp/cflite-out CC=clang-14 CXX=clang++-14 \
#   CFLAGS="-fsanitize=address,undefined -fsanitize=fuzzer-no-link" CXXFLAGS="$CFLAGS" \
#   LIB_FUZZING_ENGINE=-fsanitize=fuzzer .clusterfuzzlite/build.sh
# (SRC is the directory that holds the checkout; TPCHECK_SRC overrides the
# checkout's path, which is otherwise $SRC/tpcheck or this script's repository.)
here="$(cd "$(dirname "$0")" && pwd)"
if [[ -n "${TPCHECK_SRC:-}" ]]; then
  project="$TPCHECK_SRC"
elif [[ -f "$SRC/tpcheck/fuzz/CMakeLists.txt" ]]; then
  project="$SRC/tpcheck"
else
  project="$(cd "$here/.." && pwd)"
fi
build="${WORK:-$(mktemp -d)}/tpcheck-build"
jobs="$(nproc)"
[[ "$jobs" -gt 2 ]] || jobs=2

# The engine's flags replace the project's own sanitizer switch.
cmake -S "$project" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DTPCHECK_SANITIZE=OFF -DTPCHECK_LIBFUZZER=OFF -DTPCHECK_FUZZ_LDFLAGS="$LIB_FUZZING_ENGINE"
make -C "$build/fuzz" -j"$jobs"

built=0
for fuzzer in "$build"/fuzz/fuzz_*; do
  [[ -x "$fuzzer" && -f "$fuzzer" ]] || continue
  name="$(basename "$fuzzer")"
  target="${name#fuzz_}"
  cp "$fuzzer" "$OUT/"
  # Staged under <kind>_<name>, so a seed and a regression input of the same
  # name both make it into the zip.
  stage="$build/seed-corpus/$target"
  rm -rf "$stage" && mkdir -p "$stage"
  for sub in seed regression coverage; do
    dir="$project/corpus/$target/$sub"
    [[ -d "$dir" ]] || continue
    while IFS= read -r -d '' f; do cp "$f" "$stage/${sub}_$(basename "$f")"; done \
      < <(find "$dir" -type f ! -name '*.txt' ! -name '*.md' -print0)
  done
  rm -f "$OUT/${name}_seed_corpus.zip"
  if [[ -n "$(ls -A "$stage")" ]]; then
    (cd "$stage" && zip -q "$OUT/${name}_seed_corpus.zip" ./*)
  fi
  dict="$project/fuzz/dicts/$target.dict"
  [[ -f "$dict" ]] && cp "$dict" "$OUT/$name.dict"
  cp "$project/fuzz/options/$name.options" "$OUT/$name.options"
  built=$((built + 1))
done
[[ $built -gt 0 ]] || { echo "build.sh: no fuzz targets were built" >&2; exit 1; }
echo "build.sh: $built fuzz targets in $OUT"
