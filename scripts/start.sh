#!/usr/bin/env bash
# The main job. Until the WebAssembly build and the web demo land (issues 3 and 4), this builds
# the native engine and opens the interactive shell on an in-memory database.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
bash scripts/setup-debian.sh
cmake -S . -B build -G Ninja >/dev/null
ninja -C build -j2 opticdb
exec build/tools/opticdb "$@"
