#!/usr/bin/env bash
# Builds the WebAssembly engine (build-wasm/, emcmake + ninja) and the npm package in js/dist:
# the TypeScript compiled to ESM with .d.ts, plus opticdb.mjs/opticdb.wasm beside it.
# Needs emscripten (scripts/setup-debian.sh) and the npm devDependencies (npm ci).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
if [[ ! -f build-wasm/build.ninja ]]; then
  emcmake cmake -S . -B build-wasm -G Ninja -DCMAKE_BUILD_TYPE=Release -DOPTIC_WERROR=ON >/dev/null
fi
ninja -C build-wasm -j2 opticdb_wasm
rm -rf js/dist
npx tsc -p js
cp build-wasm/wasm/opticdb.mjs build-wasm/wasm/opticdb.wasm js/dist/
