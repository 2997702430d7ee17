#!/usr/bin/env bash
# Runs the conformance corpus through both runners, the native one (C++ engine) and the JS one
# (js/bin/opticdb-sqllogic.mjs: the opticdb package on the WebAssembly build), each in memory and
# with --module store (native: the file store; wasm: IndexedDB through fake-indexeddb), and
# compares verdicts file by file: status and passed blocks. The two builds compile the same
# sources, so any difference between them is a bug (in the JS runner port, the JS value mapping or
# the bindings); and the store runs must pass exactly the files the memory run passes (minus the
# spec's memory-only files, skipped there), or persistence changed an answer.
#
#   scripts/compare-conformance.sh [--build DIR] [FILE_OR_DIR...]
#
# --build: the native build directory (default build/); the corpus defaults to
# ../shared/conformance/quereus next to the repository. Needs the native runner and the
# package (scripts/build-js.sh) built. Prints both per-area tables and closing lines, then
# every file whose verdict differs; exit status 1 iff there is a difference, 2 on setup errors.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$repo/build"
if [[ "${1:-}" == "--build" ]]; then
  build="$2"
  shift 2
fi
inputs=("$@")
[[ ${#inputs[@]} -gt 0 ]] || inputs=("$repo/../shared/conformance/quereus")
native="$build/tests/conformance/opticdb-sqllogic"
[[ -x "$native" ]] || { echo "compare-conformance: $native is not built" >&2; exit 2; }
[[ -f "$repo/js/dist/opticdb.wasm" ]] || { echo "compare-conformance: js/dist is not built (scripts/build-js.sh)" >&2; exit 2; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# Exit status 1 only means "some file failed": the reports are what we compare.
run() {  # NAME COMMAND...
  local name="$1"; shift
  "$@" --quiet --json "$tmp/$name.json" "${inputs[@]}" > "$tmp/$name.txt" 2> "$tmp/$name.err" || [[ $? -eq 1 ]] ||
    { echo "compare-conformance: the $name runner failed:" >&2; cat "$tmp/$name.err" >&2; exit 2; }
  echo "== $name"
  sed -n '/^area /,$p' "$tmp/$name.txt"
}
run native "$native"
run wasm node "$repo/js/bin/opticdb-sqllogic.mjs"
run native-store "$native" --module store
run wasm-store node "$repo/js/bin/opticdb-sqllogic.mjs" --module store

# One line per file: "name status blocksPassed/blocksTotal" (passing: the passing files' names).
verdicts() {
  node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    for (const f of r) console.log(`${f.file} ${f.skipped ? "SKIP" : f.passed ? "PASS" : "FAIL"} ${f.blocksPassed}/${f.blocksTotal}`);
  ' "$1"
}
for name in native wasm native-store wasm-store; do
  verdicts "$tmp/$name.json" > "$tmp/$name.verdicts"
  awk '$2 == "PASS" { print $1 }' "$tmp/$name.verdicts" > "$tmp/$name.passing"
done
# The files the memory run passes that a store run may skip (memory-only there).
awk '$2 == "SKIP" { print $1 }' "$tmp/native-store.verdicts" > "$tmp/store-skipped"
grep -vxF -f "$tmp/store-skipped" "$tmp/native.passing" > "$tmp/native.passing-in-store" || true

status=0
compare() {  # LEFT RIGHT WHAT: the two files must be equal
  if diff "$tmp/$1" "$tmp/$2" > "$tmp/diff"; then
    echo "same $3: $(wc -l < "$tmp/$1") line(s)"
    return
  fi
  status=1
  echo "DIFFERENT $3 (< $1, > $2):"
  grep '^[<>]' "$tmp/diff"
  # The first failure of each differing file, from both runs.
  for name in $(grep '^[<>]' "$tmp/diff" | awk '{print $2}' | sort -u); do
    for side in "${1%%.*}" "${2%%.*}"; do
      node -e '
        const [path, name, side] = process.argv.slice(1);
        const f = JSON.parse(require("fs").readFileSync(path, "utf8")).find((x) => x.file === name);
        if (f && f.firstFailure) console.log(`  ${side} ${name}: ${f.firstFailure}`);
      ' "$tmp/$side.json" "$name" "$side"
    done
  done
}
compare native.verdicts wasm.verdicts "verdicts, native vs wasm (memory)"
compare native-store.verdicts wasm-store.verdicts "verdicts, native file store vs wasm on IndexedDB"
compare native.passing-in-store native-store.passing "passing files, memory vs store"
exit $status
