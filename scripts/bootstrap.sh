#!/usr/bin/env bash
# Installs the toolchain and dependencies and builds every package. Needs only Node 20.19+ and npm.
set -euo pipefail
cd "$(dirname "$0")/.."
PNPM_VERSION=10.34.9
if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm -v)" != "$PNPM_VERSION" ]; then
  npm install -g --silent "pnpm@$PNPM_VERSION" >/dev/null 2>&1
fi
pnpm install --frozen-lockfile 2>&1 | tail -n 15
pnpm exec turbo run build --output-logs=errors-only
