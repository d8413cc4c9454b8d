#!/usr/bin/env node
// Lints the OpenAPI document the gateway serves with two linters no one here wrote: Redocly
// (`recommended`) and Spectral (`spectral:oas`). Any error or warning fails, except what
// .redocly.lint-ignore.yaml lists with its reason. The document is generated from the built
// contracts (run the build first) with the production server URL, so the localhost warning of a
// development build does not hide anything else.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { buildOpenApiDocument } = require(path.join(ROOT, 'packages/contracts/dist/index.js'));

const documentPath = path.join(ROOT, '.run', 'openapi.json');
mkdirSync(path.dirname(documentPath), { recursive: true });
writeFileSync(documentPath, `${JSON.stringify(buildOpenApiDocument('https://api.idv.example', '0.0.0-lint'), null, 2)}\n`);
const relativeDocument = path.relative(ROOT, documentPath);

// Offline and quiet: no usage telemetry, no update check against the registry.
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
const bin = (name) => path.join(ROOT, 'node_modules', '.bin', name);
const run = (name, args) => spawnSync(bin(name), args, { cwd: ROOT, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

let failed = false;

const redocly = run('redocly', ['lint', relativeDocument, '--format=json']);
const redoclyJson = redocly.stdout.slice(redocly.stdout.indexOf('{'));
let redoclyReport;
try {
  redoclyReport = JSON.parse(redoclyJson);
} catch {
  console.error(`redocly: unreadable output (exit ${redocly.status})\n${redocly.stdout}\n${redocly.stderr}`);
  process.exit(1);
}
const { errors, warnings, ignored } = redoclyReport.totals;
console.log(`redocly lint (recommended): ${errors} errors, ${warnings} warnings, ${ignored} ignored`);
for (const problem of redoclyReport.problems) {
  if (problem.ignored) continue;
  console.log(`  ${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location?.[0]?.pointer ?? ''}`);
}
if (errors + warnings > 0) failed = true;

const spectral = run('spectral', ['lint', relativeDocument, '--ruleset', '.spectral.yaml', '--format', 'json', '--quiet']);
let spectralResults;
try {
  spectralResults = JSON.parse(spectral.stdout || '[]');
} catch {
  console.error(`spectral: unreadable output (exit ${spectral.status})\n${spectral.stdout}\n${spectral.stderr}`);
  process.exit(1);
}
const SEVERITY = ['error', 'warning', 'info', 'hint'];
const counts = Object.fromEntries(SEVERITY.map((name) => [name, 0]));
for (const result of spectralResults) counts[SEVERITY[result.severity]]++;
console.log(
  `spectral lint (spectral:oas): ${counts.error} errors, ${counts.warning} warnings, ${counts.info} infos, ${counts.hint} hints`,
);
for (const result of spectralResults) {
  console.log(`  ${SEVERITY[result.severity]} ${result.code}: ${result.message} at ${result.path.join('.')}`);
}
if (counts.error + counts.warning > 0) failed = true;

process.exit(failed ? 1 : 0);
