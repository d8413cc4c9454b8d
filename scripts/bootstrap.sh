#!/usr/bin/env bash
# Installs the toolchain and dependencies and builds every package. Needs only npm and a Node.js of any recent version: node-runtime.sh puts Node 22 first on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/node-runtime.sh
PNPM_VERSION=10.34.9
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm -v)" != "$PNPM_VERSION" ]; then
  npm install -g --silent "pnpm@$PNPM_VERSION" >/dev/null 2>&1
fi
pnpm install --frozen-lockfile 2>&1 | tail -n 15
pnpm exec turbo run build --output-logs=errors-only
