#!/usr/bin/env bash
# Quick start: installs everything, starts PostgreSQL, RabbitMQ, Redis and every service, and prints
# a ready demo account with its keys. Knobs (TIME_SCALE, WEBHOOKS_ALLOW_LOCAL_TARGETS, …) pass through.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/node-runtime.sh
export POSTGRES_ADMIN_URL=${POSTGRES_ADMIN_URL:-postgres://postgres:postgres@127.0.0.1:5432/postgres}
bash scripts/ensure-infra.sh
bash scripts/bootstrap.sh
node packages/testkit/dist/cli.js up
echo
echo "Demo account (operator CLI: pnpm ops --help):"
INTERNAL_TOKEN=${INTERNAL_TOKEN:-local-development-internal-token} node packages/ops/dist/cli.js demo
echo
echo "Dashboard: http://localhost:8085 (sign in with dashboard_owner's e-mail and password)"
echo "Try: curl -s http://localhost:8080/v1/verification-sessions -H \"Authorization: Bearer <test_key secret>\""
echo "Stop: node packages/testkit/dist/cli.js down"
