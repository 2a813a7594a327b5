#!/usr/bin/env bash
# Minimize a crashing input and promote it to corpus/TARGET/regression/, with
# a readable note beside it (the decoded fields and the violation).
#
#   scripts/fuzz_promote.sh TARGET CRASH_FILE [NAME]
#
# NAME defaults to the SHA-1 of the minimized input. The input must still
# crash (promote before fixing); afterwards `ctest -L corpus` replays it
# forever, so it must pass once the bug is fixed.
source "$(dirname "$0")/fuzz_common.sh"
[[ $# -ge 2 && $# -le 3 ]] || die "usage: scripts/fuzz_promote.sh TARGET CRASH_FILE [NAME]"
target="$1" crash="$2"
[[ -f "$crash" ]] || die "no such crash file: $crash"
check_target "$target"
engine_flags "$target"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if "$FUZZER" "$crash" >"$work/repro.log" 2>&1; then
  die "$crash does not crash fuzz_$target (already fixed?); not promoted"
fi
# libFuzzer keeps only smaller inputs that still crash.
min_flags=()
for flag in "${ENGINE_FLAGS[@]}"; do [[ "$flag" == -max_len=* ]] && min_flags+=("$flag"); done
"$FUZZER" -minimize_crash=1 -max_total_time=60 -exact_artifact_path="$work/minimized" \
  "${min_flags[@]}" "$crash" >"$work/minimize.log" 2>&1 || true
input="$work/minimized"
if [[ ! -s "$input" ]] || "$FUZZER" "$input" >/dev/null 2>&1; then input="$crash"; fi
# A registry target's input selects its entry by name, so that entries added
# to the registry later do not move it (fuzz/registry_names.cpp).
if [[ "$target" == invariants || "$target" == differential ]]; then
  mkdir -p "$work/named" && cp "$input" "$work/named/input"
  TPCHECK_FUZZ_NAME_INPUTS="$work/named" "$FUZZER" >"$work/name.log" 2>&1 \
    || { cat "$work/name.log" >&2; die "naming the input failed"; }
  input="$(find "$work/named" -type f | head -1)"
fi
name="${3:-$(sha1sum "$input" | cut -c1-40)}"
[[ "$name" =~ ^[A-Za-z0-9_.-]+$ && "$name" != *.txt && "$name" != *.md ]] || die "bad NAME '$name'"
dest="$ROOT/corpus/$target/regression/$name"
mkdir -p "$(dirname "$dest")"
cp "$input" "$dest"
TPCHECK_FUZZ_DESCRIBE=1 "$FUZZER" "$dest" >"$work/describe.log" 2>&1 || true
{
  echo "target: fuzz_$target"
  echo "promoted: $(date -u +%Y-%m-%d) from $(basename "$crash") ($(wc -c <"$crash") bytes, minimized to $(wc -c <"$dest"))"
  case "$target" in
    eval_line | cli_options) echo "input (text, cat -v): $(cat -v "$dest" | head -c 2000)" ;;
  esac
  grep -E '^tpcheck fuzz|^SUMMARY' "$work/describe.log" | head -5 || echo "(no violation line: see the sanitizer report by replaying it)"
} >"$dest.txt"
echo "promoted to $dest"
cat "$dest.txt"
