#!/usr/bin/env bash
# The conformance ratchet: runs the whole .sqllogic corpus and fails only when a file listed in
# tests/conformance/passing.txt no longer passes. Other failures are reported, not fatal, so the
# list can only grow: after making files pass, run with --update and commit the new list
# (review the diff: a line disappearing means a regression was accepted).
#
#   tools/check_ratchet.sh [--update] [--module memory|store] [BUILD_DIR]
#
# BUILD_DIR defaults to ./build and must already contain opticdb-sqllogic. Environment:
#   OPTIC_CONFORMANCE_DIR  the corpus (default: ../shared/conformance/quereus next to the repo)
#   RATCHET                the list (default: tests/conformance/passing.txt)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
update=0
module=memory
build="$repo/build"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --update) update=1 ;;
    --module) module="$2"; shift ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) build="$1" ;;
  esac
  shift
done

corpus="${OPTIC_CONFORMANCE_DIR:-$repo/../shared/conformance/quereus}"
ratchet="${RATCHET:-$repo/tests/conformance/passing.txt}"
runner="$build/tests/conformance/opticdb-sqllogic"
[[ -x "$runner" ]] || { echo "check_ratchet: $runner not built (cmake --build $build --target opticdb-sqllogic)" >&2; exit 2; }
[[ -d "$corpus" ]] || { echo "check_ratchet: corpus not found at $corpus" >&2; exit 2; }
[[ -f "$ratchet" ]] || : > "$ratchet"

args=(--quiet --module "$module" --ratchet "$ratchet")
if [[ $update -eq 1 ]]; then
  args+=(--update-ratchet "$ratchet")
fi
exec "$runner" "${args[@]}" "$corpus"
