#!/usr/bin/env bash
# Makes sure Debian's Chromium is at /usr/bin/chromium for the flow-runner's end-to-end tests
# (driven by playwright-core with executablePath; never `npx playwright install`). Idempotent.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  exit 0
fi
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
echo "[browser] installing chromium from Debian"
as_root apt-get update -qq
DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq chromium >/dev/null
/usr/bin/chromium --version
