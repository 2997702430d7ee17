#!/usr/bin/env bash
# Runs the conformance corpus through both runners, the native one (C++ engine) and the JS one
# (js/bin/opticdb-sqllogic.mjs: the opticdb package on the WebAssembly build), and compares their
# verdicts file by file: status and passed blocks. The two builds compile the same sources, so
# any difference is a bug (in the JS runner port, the JS value mapping or the bindings).
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

# One line per file: "name status blocksPassed/blocksTotal".
verdicts() {
  node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    for (const f of r) console.log(`${f.file} ${f.skipped ? "SKIP" : f.passed ? "PASS" : "FAIL"} ${f.blocksPassed}/${f.blocksTotal}`);
  ' "$1"
}
verdicts "$tmp/native.json" > "$tmp/native.verdicts"
verdicts "$tmp/wasm.json" > "$tmp/wasm.verdicts"
if diff "$tmp/native.verdicts" "$tmp/wasm.verdicts" > "$tmp/diff"; then
  echo "same verdicts: $(grep -c ' PASS ' "$tmp/native.verdicts") file(s) pass on both builds"
  exit 0
fi
echo "DIFFERENT verdicts (< native, > wasm):"
grep '^[<>]' "$tmp/diff"
# The first failure of each differing file, from both runners.
for name in $(grep '^[<>]' "$tmp/diff" | awk '{print $2}' | sort -u); do
  for side in native wasm; do
    node -e '
      const [path, name, side] = process.argv.slice(1);
      const f = JSON.parse(require("fs").readFileSync(path, "utf8")).find((x) => x.file === name);
      if (f && f.firstFailure) console.log(`  ${side} ${name}: ${f.firstFailure}`);
    ' "$tmp/$side.json" "$name" "$side"
  done
done
exit 1
