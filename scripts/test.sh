#!/usr/bin/env bash
# Runs every test against real PostgreSQL, RabbitMQ and Redis and the real services (started once by
# jest's global setup), then prints one line: "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/node-runtime.sh
export POSTGRES_ADMIN_URL=${POSTGRES_ADMIN_URL:-postgres://postgres:postgres@127.0.0.1:5432/postgres}
bash scripts/ensure-infra.sh || exit 1
bash scripts/ensure-browser.sh || exit 1
bash scripts/ensure-fonts.sh || exit 1
bash scripts/ensure-promtool.sh || exit 1
bash scripts/bootstrap.sh || exit 1
mkdir -p .run
report=.run/jest-report.json
rm -f "$report"
pnpm exec jest --json --outputFile="$report" --maxWorkers=2 "$@"
status=$?
if [ -f "$report" ]; then
  node -e "
    const r = require('./$report');
    const failedSuites = r.testResults.filter((s) => s.status === 'failed' && s.assertionResults.length === 0).length;
    console.log((r.numPassedTests) + ' passed, ' + (r.numFailedTests + failedSuites) + ' failed');
  "
else
  echo "0 passed, 1 failed"
fi
exit $status
