#!/usr/bin/env bash
# Makes sure the fonts the synthetic document corpus (packages/corpus) renders with are installed:
# Debian's OCR-B for machine readable zones, DejaVu and Liberation for printed fields. sharp renders SVG
# text through fontconfig, so a missing font silently falls back to another face and the images (and
# the tests that pin their bytes) change. Idempotent, and silent when everything is already there.
set -euo pipefail

missing=()
for package in fonts-ocr-b fonts-dejavu-core fonts-liberation; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
echo "[fonts] installing ${missing[*]} from Debian"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { as_root apt-get update -qq && DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}"; } >"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi
fc-cache -f >/dev/null 2>&1 || true
