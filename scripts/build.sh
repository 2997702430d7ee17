#!/usr/bin/env bash
# `npm run build`: the native tree (engine, CLI, tests), the WebAssembly engine and the npm
# package (js/dist). `npm pack` in js/ then makes the tarball users install.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
bash scripts/setup-debian.sh
[[ -d node_modules ]] || npm ci
cmake -S . -B build -G Ninja >/dev/null
ninja -C build -j2
bash scripts/build-js.sh
