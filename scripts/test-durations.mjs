// Writes scripts/test-durations.json, the durations jest-sequencer.js orders the suite by on a machine that
// has not run it yet, from the report of a whole run (`bash scripts/test.sh` writes .run/jest-report.json).
// Run it after adding a long test file, or when the order drifts: `node scripts/test-durations.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const reportPath = path.resolve(root, process.argv[2] ?? '.run/jest-report.json');
const report = JSON.parse(readFileSync(reportPath, 'utf8'));
const milliseconds = Object.fromEntries(
  report.testResults
    .map((file) => [path.relative(root, file.name), Math.round(file.endTime - file.startTime)])
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
const table = {
  about: 'Milliseconds per test file in one whole run (scripts/test.sh); scripts/jest-sequencer.js runs the longest first.',
  measured: new Date(report.startTime).toISOString().slice(0, 10),
  milliseconds,
};
writeFileSync(path.join(root, 'scripts', 'test-durations.json'), `${JSON.stringify(table, null, 2)}\n`);
console.log(`${Object.keys(milliseconds).length} files written to scripts/test-durations.json`);
