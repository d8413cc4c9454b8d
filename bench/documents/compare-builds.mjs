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
// With `--lift-caps` the wall-clock safety caps are raised to 10 minutes in both builds (see compare-support.mjs).
// The corpus must be cached: run `node bench/documents/run.mjs` with the same seed and count first.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ACCEPTED, compareValues, liftCaps } from './compare-support.mjs';
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

const log = (line) => process.stderr.write(`[compare-builds] ${line}\n`);

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
  values += compareValues(old, now, id, differences);
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
