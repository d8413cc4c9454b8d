#!/usr/bin/env bash
# Installs the toolchain and dependencies and builds every package. Needs only npm and a Node.js of any recent version: node-runtime.sh puts Node 22 first on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/node-runtime.sh
PNPM_VERSION=10.34.9
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm -v)" != "$PNPM_VERSION" ]; then
  npm install -g --silent "pnpm@$PNPM_VERSION" >/dev/null 2>&1
fi
# With Node 22 fetched into the cache (node-runtime.sh), pnpm lives beside it, where a plain shell does not
# look: a launcher on the system PATH runs that pnpm with that Node first on PATH, so `pnpm …` typed in any
# shell (or run by a tool) behaves as it does in these scripts.
idv_node_bin=$(dirname "$(command -v node)")
if [ "${idv_node_bin#"${XDG_CACHE_HOME:-$HOME/.cache}/idv/"}" != "$idv_node_bin" ] && [ -d /usr/local/bin ] && [ -w /usr/local/bin ]; then
  printf '#!/bin/sh\n# Written by scripts/bootstrap.sh: pnpm on the Node.js the project runs on.\nPATH="%s:$PATH" exec "%s/pnpm" "$@"\n' \
    "$idv_node_bin" "$idv_node_bin" >/usr/local/bin/pnpm.idv
  chmod 755 /usr/local/bin/pnpm.idv
  mv -f /usr/local/bin/pnpm.idv /usr/local/bin/pnpm
fi
pnpm install --frozen-lockfile 2>&1 | tail -n 15
pnpm exec turbo run build --output-logs=errors-only
