#!/usr/bin/env bash
# Makes sure promtool (Debian's prometheus package) is installed: CI checks the metrics every service
# exposes (`promtool check metrics`) and the recording and alerting rules of deploy/monitoring
# (`promtool check rules`, `promtool test rules`) with the tool Prometheus itself ships. Idempotent, silent
# when it is already there. The package's own Prometheus server is not started.
set -euo pipefail

command -v promtool >/dev/null 2>&1 && exit 0
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
echo "[promtool] installing Debian's prometheus package"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { as_root apt-get update -qq && DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends prometheus; } >"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi
