#!/usr/bin/env bash
# Installs what the native and WebAssembly builds and their tests need on a fresh Debian machine (idempotent: does
# nothing when everything is present). Runs apt-get only when a package is missing.
set -euo pipefail
# clang + libclang-rt-dev (its ASan/UBSan and libFuzzer runtimes) + llvm (llvm-symbolizer for
# readable sanitizer reports): the sanitizer and fuzz build (scripts/test.sh, scripts/fuzz.sh).
packages=(g++ cmake ninja-build libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libboost-dev emscripten chromium
          clang libclang-rt-dev llvm)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# Node.js 20 and npm come with the machine (Debian's own nodejs is 18, too old for Vitest 4).
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "setup: Node.js 20+ and npm are required (not found on PATH)" >&2
  exit 1
fi
