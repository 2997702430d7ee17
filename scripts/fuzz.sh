#!/usr/bin/env bash
# Time-bounded coverage-guided fuzzing of the parser and of whole scripts (fuzz/README.md), on a
# build configured with -DOPTIC_FUZZ=ON (clang; scripts/test.sh's build-asan, with ASan+UBSan).
#
#   scripts/fuzz.sh [BUILD_DIR=build-asan] [SECONDS_PER_TARGET=${FUZZ_SECONDS:-120}]
#
# Seeds are made at run time from the conformance corpus (../shared/conformance/quereus/*.sqllogic,
# never copied into the repo): each file's statements without its expected results, a few
# statements per seed. Both targets run at once, one process each. A crash, a sanitizer report, a
# leak or a hang fails the run; its input is printed and left in the artifacts directory (kept
# as fuzz/regressions/<target>/<name> once fixed, so ctest replays it). Prints execs/s per target.
set -uo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-build-asan}"
seconds="${2:-${FUZZ_SECONDS:-120}}"
corpus="${OPTIC_CONFORMANCE_DIR:-$repo/../shared/conformance/quereus}"
work="$(mktemp -d "${TMPDIR:-/tmp}/opticdb-fuzz.XXXXXX")"
trap 'rm -rf "$work/seeds" "$work"/corpus-*' EXIT
for t in parser script; do
  if [[ ! -x "$build/fuzz/fuzz_$t" ]]; then
    echo "fuzz: $build/fuzz/fuzz_$t is missing (configure with -DOPTIC_FUZZ=ON, clang)" >&2
    exit 1
  fi
done

# Seeds: one per corpus file, its first 12 statements (result lines `→ …` and comment lines
# dropped; a statement ends with a line ending in `;`, which fuzz_script splits at), so the first
# pass over the seeds, which libFuzzer makes before it mutates anything, stays short.
mkdir -p "$work/seeds"
for f in "$corpus"/*.sqllogic; do
  awk '/^→/ || /^[[:space:]]*--/ || /^[[:space:]]*$/ { next }
       { print } /;[[:space:]]*$/ && ++n == 12 { exit }' "$f" >"$work/seeds/$(basename "$f" .sqllogic)"
done
echo "fuzz: $(ls "$work/seeds" | wc -l) seeds from $corpus; ${seconds}s per target; artifacts in $work"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
pids=()
for t in parser script; do
  mkdir -p "$work/corpus-$t" "$work/artifacts-$t"
  # -timeout: one input may take 10 s (fuzz_script bounds each statement at 10 ms); -rss_limit_mb:
  # an input that needs 2 GB is a bug (unbounded growth), as is a malloc over 512 MB. The outer
  # `timeout` also bounds the first pass over the seeds (max_total_time does not): SIGINT makes
  # libFuzzer print its stats and exit 72. A bug exits 77 (crash, report, leak) or 78 (hang).
  timeout --preserve-status -s INT "$seconds" "$build/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -malloc_limit_mb=512 -max_len=4096 -error_exitcode=77 -timeout_exitcode=78 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts-$t/" "$work/corpus-$t" "$work/seeds" >"$work/fuzz_$t.log" 2>&1 &
  pids+=($!)
done
failed=0
i=0
for t in parser script; do
  wait "${pids[$i]}"
  rc=$?
  i=$((i + 1))
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/fuzz_$t.log" | grep -o '[0-9]*$')
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$work/fuzz_$t.log" | grep -o '[0-9]*$')
  cov=$(grep -o 'cov: [0-9]*' "$work/fuzz_$t.log" | tail -1)
  echo "fuzz_$t: ${runs:-?} inputs run, ${rate:-?} execs/s, $cov, exit $rc"
  if [[ $rc -ne 0 && $rc -ne 72 ]]; then
    failed=1
    grep -A40 -E '^==[0-9]+==|runtime error|deadly signal|Test unit written|ERROR: libFuzzer' "$work/fuzz_$t.log" | head -80
    for a in "$work/artifacts-$t"/*; do
      [[ -f $a ]] || continue
      echo "--- input $a (base64):"
      base64 "$a"
    done
  fi
done
[[ $failed -eq 0 ]] && rm -rf "$work"
exit $failed
