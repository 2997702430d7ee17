#!/usr/bin/env bash
# The layering check (ARCHITECTURE.md, "Code map"): every #include in core/ points at the file's
# own folder or a folder below it, and wasm/ includes only core/api. Exits 1 and lists each
# offending include otherwise. `--graph` also prints the folder-to-folder include counts.
#
#   tools/check_layering.sh [--graph]
#
# The order, lowest first. A new folder under core/ must be placed here (and in ARCHITECTURE.md)
# before it builds green.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
layers=(common storage parser catalog execution optimizer planner maintenance ddl persistence api)
graph=0
[[ "${1:-}" == "--graph" ]] && graph=1

declare -A rank
for i in "${!layers[@]}"; do rank[${layers[$i]}]=$i; done

violations=0
declare -A arrows
while IFS= read -r line; do
  file=${line%%:*}
  target=${line#*#include \"core/}
  target=${target%%/*}
  if [[ $file == wasm/* ]]; then
    from=wasm
    if [[ $target != api ]]; then
      echo "$line  <- wasm/ may include only core/api"
      violations=$((violations + 1))
    fi
  else
    from=${file#core/}
    from=${from%%/*}
    if [[ -z ${rank[$from]+x} ]]; then
      echo "$file: folder core/$from has no place in tools/check_layering.sh's layer order"
      violations=$((violations + 1))
      continue
    fi
    if [[ -z ${rank[$target]+x} ]]; then
      echo "$line  <- core/$target has no place in the layer order"
      violations=$((violations + 1))
      continue
    fi
    if (( rank[$target] > rank[$from] )); then
      echo "$line  <- $from (layer ${rank[$from]}) includes $target (layer ${rank[$target]}), a layer above it"
      violations=$((violations + 1))
    fi
  fi
  [[ $from != "$target" ]] && arrows["$from -> $target"]=$(( ${arrows["$from -> $target"]:-0} + 1 ))
done < <(git ls-files -co --exclude-standard -- 'core/*.h' 'core/*.cpp' 'wasm/*.h' 'wasm/*.cpp' |
         xargs grep -HE '^#include "core/[a-z_]+/' || true)

if (( graph )); then
  echo "folder include graph (includes per folder pair):"
  for k in "${!arrows[@]}"; do echo "  $k: ${arrows[$k]}"; done | sort
fi
if (( violations > 0 )); then
  echo "layering: $violations include(s) point upward or outside the layer order"
  exit 1
fi
echo "layering: every include points down (${#arrows[@]} folder pairs; order: ${layers[*]}; wasm -> api)"
