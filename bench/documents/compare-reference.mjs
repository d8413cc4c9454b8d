#!/usr/bin/env node
// compare-builds.mjs on ../shared/data/reference-documents instead of the corpus: every image of its
// INDEX.json read by two builds of packages/verification as a `front`, a `back` and a `front_angle`
// (dist/worker.js `read_side`, as the service reads an upload), the builds in turn, and the readings compared
// value by value except the wall-clock ones (`ms`, `timings`):
// `node bench/documents/compare-reference.mjs --before DIR [--after DIR] [--from 0] [--to 75] [--lift-caps]`.
// Prints the counts and each difference; exits 1 when there is one. `--from`/`--to` split the set so
// that each locked run stays short.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadVerification } from './verification-build.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const IMAGES = path.resolve(ROOT, '..', 'shared', 'data', 'reference-documents', 'images');

const { values: args } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string', default: path.join(ROOT, 'packages/verification') },
    from: { type: 'string', default: '0' },
    to: { type: 'string' },
    'lift-caps': { type: 'boolean', default: false },
  },
});
if (args.before === undefined) {
  process.stderr.write('usage: compare-reference.mjs --before DIR [--after DIR] [--from N] [--to N] [--lift-caps]\n');
  process.exit(2);
}
const ACCEPTED = ['dni', 'passport', 'licence'];
const SIDES = ['front', 'back', 'front_angle'];
const UNTIMED = new Set(['ms', 'timings']);
// compare-builds.mjs's list: the wall-clock safety caps, raised in both builds with --lift-caps.
const CAPS = ['DEFAULT_OCR_TIMEOUT_MS', 'RECAPTURE_OCR_TIMEOUT_MS', 'ARBITRATION_OCR_TIMEOUT_MS', 'DEFAULT_SIDE_SAFETY_CAP_MS'];
const CAP_MODULES = [
  'calibration/budgets.js',
  'pipeline/read-side.js',
  'readers/ocr.js',
  'readers/mrz-search/variants.js',
  'readers/mrz.reader.js',
];
const log = (line) => process.stderr.write(`[compare-reference] ${line}\n`);

function build(dir) {
  const packageDir = path.resolve(dir);
  if (args['lift-caps']) {
    for (const file of CAP_MODULES) {
      const module = path.join(packageDir, 'dist', file);
      if (!fs.existsSync(module)) continue;
      const exports = require(module);
      for (const name of CAPS) if (Object.getOwnPropertyDescriptor(exports, name)?.writable === true) exports[name] = 600_000;
    }
  }
  return {
    name: packageDir,
    tooling: loadVerification(packageDir),
    readSide: require(path.join(packageDir, 'dist/worker.js')).default,
  };
}

function compare(before, after, at, differences) {
  if (ArrayBuffer.isView(before) && ArrayBuffer.isView(after)) {
    const same = Buffer.compare(
      Buffer.from(before.buffer, before.byteOffset, before.byteLength),
      Buffer.from(after.buffer, after.byteOffset, after.byteLength),
    );
    if (same !== 0) differences.push({ at, before: `${before.byteLength} bytes`, after: `${after.byteLength} bytes, different` });
    return 1;
  }
  if (before === null || after === null || typeof before !== 'object' || typeof after !== 'object') {
    if (!Object.is(before, after)) differences.push({ at, before, after });
    return 1;
  }
  if (Array.isArray(before) !== Array.isArray(after)) {
    differences.push({ at, before, after });
    return 1;
  }
  let compared = 0;
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (UNTIMED.has(key)) continue;
    compared += compare(before[key], after[key], `${at}.${key}`, differences);
  }
  return compared;
}

const entries = JSON.parse(fs.readFileSync(path.join(IMAGES, 'INDEX.json'), 'utf8'));
const chosen = entries.slice(Number(args.from), args.to === undefined ? undefined : Number(args.to));
const builds = [build(args.before), build(args.after)];
log(`before: ${builds[0].name}`);
log(`after: ${builds[1].name}`);
const today = new Date().toISOString().slice(0, 10);
const differences = [];
let values = 0;
let readings = 0;
for (const [index, entry] of chosen.entries()) {
  const image = fs.readFileSync(path.join(IMAGES, entry.path));
  for (const side of SIDES) {
    const results = [];
    for (const verification of builds) {
      results.push((await verification.readSide({ kind: 'read_side', side, image, acceptedTypes: ACCEPTED, today })).reading);
    }
    values += compare(results[0], results[1], `${entry.path}#${side}`, differences);
    readings += 1;
  }
  if ((index + 1) % 10 === 0) log(`${index + 1}/${chosen.length} images, ${differences.length} differences so far`);
}
for (const verification of builds) await verification.tooling.stopEngines?.();
for (const { at, before, after } of differences)
  process.stdout.write(`${at}: ${JSON.stringify(before)} -> ${JSON.stringify(after)}\n`);
process.stdout.write(
  `reference-documents ${Number(args.from)}–${Number(args.from) + chosen.length}: ${chosen.length} images, ${readings} readings, ${values} values compared, ${differences.length} differences${args['lift-caps'] ? ' (safety caps lifted)' : ''}\n`,
);
process.exit(differences.length === 0 ? 0 : 1);
