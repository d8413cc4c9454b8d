#!/usr/bin/env node
// Reads every side of the benchmark's cached corpus with two builds of packages/verification and compares
// the readings field by field: `node bench/documents/compare-builds.mjs --before DIR [--after DIR]
// [--seed 42] [--count 60] [--lift-caps]`. DIR is a package folder holding a `dist/` (e.g. a copy of an older build with
// a `node_modules` link to packages/verification's); `--after` defaults to packages/verification.
//
// For a change that must not change what is read (a refactor, constants moved): each side goes through
// each build's `read_side` task (dist/worker.js, as the service reads an upload) and each document through
// its `combineSides`, document by document, the two builds in turn so that both see the same load. Every
// value of the readings is compared (fields, codes, confidences, problems, checks, counted work) except the
// wall-clock ones (`ms`, `timings`). Prints the counts and each difference; exits 1 when there is one.
// With `--lift-caps` the wall-clock safety caps are raised to 10 minutes in both builds (see `CAPS`).
// The corpus must be cached: run `node bench/documents/run.mjs` with the same seed and count first.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadVerification } from './verification-build.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const corpus = require(path.join(ROOT, 'packages/corpus/dist/index.js'));

const { values: args } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string', default: path.join(ROOT, 'packages/verification') },
    seed: { type: 'string', default: '42' },
    count: { type: 'string', default: '60' },
    width: { type: 'string', default: String(corpus.DEFAULT_GENERATE_OPTIONS.width) },
    height: { type: 'string', default: String(corpus.DEFAULT_GENERATE_OPTIONS.height) },
    'lift-caps': { type: 'boolean', default: false },
  },
});
if (args.before === undefined) {
  process.stderr.write('usage: compare-builds.mjs --before DIR [--after DIR] [--seed N] [--count N]\n');
  process.exit(2);
}
const SEED = Number(args.seed);
const COUNT = Number(args.count);
const OPTIONS = { ...corpus.DEFAULT_GENERATE_OPTIONS, seed: SEED, width: Number(args.width), height: Number(args.height) };
// As the benchmark reads them (bench/documents/read-worker.mjs).
const ACCEPTED = ['dni', 'passport', 'licence'];
// Wall-clock values: they differ from one run to the next whatever the build.
const UNTIMED = new Set(['ms', 'timings']);

const log = (line) => process.stderr.write(`[compare-builds] ${line}\n`);

// The wall-clock safety caps: on a loaded machine a pass cut short by one reads differently whatever the
// build, so `--lift-caps` raises them in both builds to compare what the builds read, not the machine's
// load. They are exported constants of the compiled modules, each read from its module's exports at every
// use; older builds kept them beside the code that applies them.
const CAPS = ['DEFAULT_OCR_TIMEOUT_MS', 'RECAPTURE_OCR_TIMEOUT_MS', 'ARBITRATION_OCR_TIMEOUT_MS', 'DEFAULT_SIDE_SAFETY_CAP_MS'];
const CAP_MODULES = [
  'calibration/budgets.js',
  'pipeline/read-side.js',
  'readers/ocr.js',
  'readers/mrz-search/variants.js',
  'readers/mrz.reader.js',
];
const LIFTED_CAP_MS = 600_000;

function liftCaps(packageDir) {
  const lifted = new Set();
  for (const file of CAP_MODULES) {
    const module = path.join(packageDir, 'dist', file);
    if (!fs.existsSync(module)) continue;
    const exports = require(module);
    for (const name of CAPS) {
      // Only where the value is defined (a data property); a re-export is a getter onto it.
      if (Object.getOwnPropertyDescriptor(exports, name)?.writable !== true) continue;
      exports[name] = LIFTED_CAP_MS;
      lifted.add(name);
    }
  }
  const missing = CAPS.filter((name) => !lifted.has(name));
  if (missing.length > 0) throw new Error(`${packageDir}: no ${missing.join(', ')} found to lift`);
}

function build(dir) {
  const packageDir = path.resolve(dir);
  if (args['lift-caps']) liftCaps(packageDir);
  return {
    name: packageDir,
    tooling: loadVerification(packageDir),
    readSide: require(path.join(packageDir, 'dist/worker.js')).default,
  };
}

async function readDocument(verification, dir, labels) {
  const today = labels[0].reference_date;
  const options = { acceptedTypes: ACCEPTED, today };
  const sides = [];
  for (const label of labels) {
    const image = fs.readFileSync(path.join(dir, label.file));
    sides.push((await verification.readSide({ kind: 'read_side', side: label.side, image, ...options })).reading);
  }
  return { sides, document: verification.tooling.combineSides(sides, options) };
}

/** Every leaf of `before` and `after` compared by path; returns the number of values compared. */
function compare(before, after, at, differences) {
  // Bytes (the portrait's crop) are one value: equal or not.
  if (ArrayBuffer.isView(before) && ArrayBuffer.isView(after)) {
    if (
      Buffer.compare(
        Buffer.from(before.buffer, before.byteOffset, before.byteLength),
        Buffer.from(after.buffer, after.byteOffset, after.byteLength),
      ) !== 0
    ) {
      differences.push({ at, before: `${before.byteLength} bytes`, after: `${after.byteLength} bytes, different` });
    }
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
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  for (const key of keys) {
    if (UNTIMED.has(key)) continue;
    compared += compare(before[key], after[key], `${at}.${key}`, differences);
  }
  return compared;
}

const dir = corpus.corpusCacheDir(path.join(ROOT, 'bench', 'results', 'corpus'), OPTIONS);
const documents = [];
for (let index = 0; index < COUNT; index++) {
  const file = path.join(dir, `${corpus.documentId(SEED, index)}.labels.json`);
  if (!fs.existsSync(file)) {
    log(`${path.relative(ROOT, file)} is missing: run node bench/documents/run.mjs --seed ${SEED} --count ${COUNT} first`);
    process.exit(2);
  }
  documents.push(JSON.parse(fs.readFileSync(file, 'utf8')));
}

const before = build(args.before);
const after = build(args.after);
log(`before: ${before.name}`);
log(`after: ${after.name}`);
const differences = [];
let sides = 0;
let values = 0;
for (const [index, labels] of documents.entries()) {
  const id = corpus.documentId(SEED, index);
  const old = await readDocument(before, dir, labels);
  const now = await readDocument(after, dir, labels);
  sides += labels.length;
  values += compare(old, now, id, differences);
  if ((index + 1) % 10 === 0) log(`${index + 1}/${documents.length} documents, ${differences.length} differences so far`);
}
for (const verification of [before, after]) await verification.tooling.stopEngines?.();

for (const { at, before: was, after: is } of differences) {
  process.stdout.write(`${at}: ${JSON.stringify(was)} -> ${JSON.stringify(is)}\n`);
}
process.stdout.write(
  `seed ${SEED}: ${documents.length} documents, ${sides} sides, ${values} values compared, ${differences.length} differences` +
    `${args['lift-caps'] ? ' (safety caps lifted)' : ''}\n`,
);
process.exit(differences.length === 0 ? 0 : 1);
