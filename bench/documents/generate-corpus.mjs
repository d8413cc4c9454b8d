#!/usr/bin/env node
// Generates (or finds cached) the benchmark's labelled corpus without reading it: `node
// bench/documents/generate-corpus.mjs [--seed 42] [--count 16]`, into bench/results/corpus/ as run.mjs
// would, so that compare-builds.mjs can pair two builds on it without a benchmark run first.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const corpus = require(path.join(ROOT, 'packages/corpus/dist/index.js'));

const { values: args } = parseArgs({
  options: {
    seed: { type: 'string', default: '42' },
    count: { type: 'string', default: '16' },
    width: { type: 'string', default: String(corpus.DEFAULT_GENERATE_OPTIONS.width) },
    height: { type: 'string', default: String(corpus.DEFAULT_GENERATE_OPTIONS.height) },
  },
});
// The same options as run.mjs and compare-builds.mjs, so the cache folder is theirs.
const OPTIONS = {
  ...corpus.DEFAULT_GENERATE_OPTIONS,
  seed: Number(args.seed),
  width: Number(args.width),
  height: Number(args.height),
};
const root = path.join(ROOT, 'bench', 'results', 'corpus');
const dir = corpus.corpusCacheDir(root, OPTIONS);
let made = 0;
for (let index = 0; index < Number(args.count); index++) {
  if (fs.existsSync(path.join(dir, `${corpus.documentId(OPTIONS.seed, index)}.labels.json`))) continue;
  await corpus.cachedDocumentImages(root, index, OPTIONS);
  made += 1;
}
process.stderr.write(
  `[generate-corpus] seed ${OPTIONS.seed}: ${made} documents made, ${Number(args.count) - made} cached, in ${path.relative(ROOT, dir)}\n`,
);
