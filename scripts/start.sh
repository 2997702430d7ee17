#!/usr/bin/env bash
# The main job: builds the WebAssembly engine and the opticdb package, then serves the web demo
# (web-demo/: an in-browser database seeded with a small schema, a SQL editor and a live query)
# at http://localhost:${PORT:-5173}/. The native shell is `build/tools/opticdb` after `npm run build`.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
bash scripts/setup-debian.sh
[[ -d node_modules ]] || npm ci --no-audit --no-fund
bash scripts/build-js.sh
echo "OpticDB demo: http://localhost:${PORT:-5173}/"
exec npx vite --config web-demo/vite.config.js --port "${PORT:-5173}" --strictPort
