#!/usr/bin/env node
// The quality helper alone (packages/verification's dist/pipeline/quality-port.js `assessQuality`, what
// quality-thread.worker.js runs for each side), two builds paired:
//
//   node bench/documents/quality-cpu.mjs --before DIR [--after DIR] [--rounds 4] [--passes 2]
//     Core-milliseconds per side (process CPU: the JavaScript and libvips' decode), each build in its own
//     process, the builds alternating round by round (the order swapped every round), the yardstick
//     (`bench/machine-reference.mjs`) before and after. Images: bench/verification's corpus
//     (bench/results/verification-corpus/, `--seed 4343 --documents 6`), each front, back and tilted front.
//   node bench/documents/quality-cpu.mjs --compare --before DIR [--after DIR] [--seeds 42,7,99] [--count 16]
//     Every measure of the full report (`quality/` `assessQuality`: blur, glare, brightness, every screen
//     feature, score, verdict, problems; `ms` aside) of every image compared bit for bit (Object.is): the
//     verification corpus, the benchmark corpus of each seed (bench/results/corpus/, generate-corpus.mjs)
//     and, with `--reference DIR`, every image of DIR/images/INDEX.json (the shared reference set, kept
//     beside the repository). Exits 1 on a difference.
//
// DIR is a package folder holding a `dist/` (e.g. PARENT/packages/verification, PARENT a checkout of
// the parent commit, built); `--after` defaults to this tree's packages/verification. Run under the
// bench lock: it loads both cores' worth of work.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { compareValues } from './compare-support.mjs';

const require = createRequire(import.meta.url);
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');

const { values: args } = parseArgs({
  options: {
    before: { type: 'string' },
    after: { type: 'string', default: path.join(ROOT, 'packages/verification') },
    rounds: { type: 'string', default: '4' },
    passes: { type: 'string', default: '2' },
    seed: { type: 'string', default: '4343' },
    documents: { type: 'string', default: '6' },
    seeds: { type: 'string', default: '42,7,99' },
    count: { type: 'string', default: '16' },
    compare: { type: 'boolean', default: false },
    reference: { type: 'string' },
    child: { type: 'string' },
    mode: { type: 'string' },
    list: { type: 'string' },
  },
});
const log = (line) => process.stderr.write(`[quality-cpu] ${line}\n`);

// ---- child: one build, one process ---------------------------------------------------------------------
if (args.child !== undefined) {
  const files = JSON.parse(fs.readFileSync(args.list, 'utf8'));
  const dist = path.join(path.resolve(args.child), 'dist');
  if (args.mode === 'cpu') {
    const { assessQuality } = require(path.join(dist, 'pipeline/quality-port.js'));
    const images = files.map(({ file, side }) => ({ side, jpeg: fs.readFileSync(file) }));
    // Warm-up: the first photos compile the loops and start libvips' threads.
    for (const image of images.slice(0, 3)) await assessQuality({ jpeg: image.jpeg, width: 0, height: 0 });
    const perSide = {};
    for (let pass = 0; pass < Number(args.passes); pass++) {
      for (const { side, jpeg } of images) {
        const before = process.cpuUsage();
        await assessQuality({ jpeg, width: 0, height: 0 });
        const used = process.cpuUsage(before);
        (perSide[side] ??= []).push((used.user + used.system) / 1000);
      }
    }
    process.stdout.write(JSON.stringify(perSide));
  } else {
    const { assessQuality } = require(path.join(dist, 'quality/index.js'));
    const reports = [];
    for (const { file } of files) {
      const { ms, ...report } = await assessQuality(fs.readFileSync(file));
      reports.push(report);
    }
    // JSON keeps every double exactly (shortest round-trip form); -0 is the one value it would lose.
    process.stdout.write(JSON.stringify(reports, (_, value) => (Object.is(value, -0) ? '-0' : value)));
  }
  process.exit(0);
}

// ---- parent --------------------------------------------------------------------------------------------
if (args.before === undefined) {
  process.stderr.write('usage: quality-cpu.mjs [--compare] --before DIR [--after DIR]\n');
  process.exit(2);
}
const builds = [path.resolve(args.before), path.resolve(args.after)];

function verificationImages(seed, documents) {
  const dir = path.join(ROOT, 'bench', 'results', 'verification-corpus', `v2-s${seed}-n${documents}`);
  const manifest = path.join(dir, 'manifest.json');
  if (!fs.existsSync(manifest)) {
    log(
      `${path.relative(ROOT, manifest)} is missing: bench/verification/corpus.mjs makes it (run bench/verification/run.mjs once)`,
    );
    process.exit(2);
  }
  return JSON.parse(fs.readFileSync(manifest, 'utf8')).documents.flatMap(({ id }) =>
    ['front', 'back', 'front_angle'].map((side) => ({ file: path.join(dir, `${id}-${side}.jpg`), side })),
  );
}

function corpusImages(seed, count) {
  const corpus = require(path.join(ROOT, 'packages/corpus/dist/index.js'));
  const options = { ...corpus.DEFAULT_GENERATE_OPTIONS, seed };
  const dir = corpus.corpusCacheDir(path.join(ROOT, 'bench', 'results', 'corpus'), options);
  const images = [];
  for (let index = 0; index < count; index++) {
    const labels = path.join(dir, `${corpus.documentId(seed, index)}.labels.json`);
    if (!fs.existsSync(labels)) {
      log(`${path.relative(ROOT, labels)} is missing: node bench/documents/generate-corpus.mjs --seed ${seed} --count ${count}`);
      process.exit(2);
    }
    for (const label of JSON.parse(fs.readFileSync(labels, 'utf8')))
      images.push({ file: path.join(dir, label.file), side: label.side });
  }
  return images;
}

function referenceImages(dir) {
  const images = path.join(path.resolve(dir), 'images');
  return JSON.parse(fs.readFileSync(path.join(images, 'INDEX.json'), 'utf8')).map((entry) => ({
    file: path.join(images, entry.path),
    side: 'reference',
  }));
}

function runChild(build, mode, images) {
  const list = path.join(fs.mkdtempSync('/tmp/quality-cpu-'), 'images.json');
  fs.writeFileSync(list, JSON.stringify(images));
  const out = execFileSync(
    process.execPath,
    [fileURLToPath(import.meta.url), '--child', build, '--mode', mode, '--list', list, '--passes', args.passes],
    {
      maxBuffer: 1 << 30,
      encoding: 'utf8',
    },
  );
  fs.rmSync(path.dirname(list), { recursive: true });
  return JSON.parse(out);
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;

async function yardstick() {
  const { machineReference } = await import(path.join(ROOT, 'bench/machine-reference.mjs'));
  return machineReference();
}

if (args.compare) {
  const sets = [
    ['verification corpus', verificationImages(Number(args.seed), Number(args.documents))],
    ...args.seeds.split(',').map((seed) => [`corpus seed ${seed}`, corpusImages(Number(seed), Number(args.count))]),
    ...(args.reference ? [['reference-documents', referenceImages(args.reference)]] : []),
  ];
  let differences = 0;
  for (const [name, images] of sets) {
    const [before, after] = builds.map((build) => runChild(build, 'compare', images));
    const found = [];
    const values = images.reduce(
      (sum, image, index) => sum + compareValues(before[index], after[index], path.relative(ROOT, image.file), found),
      0,
    );
    for (const { at, before: was, after: is } of found) {
      process.stdout.write(`${at}: ${JSON.stringify(was)} -> ${JSON.stringify(is)}\n`);
    }
    differences += found.length;
    process.stdout.write(`${name}: ${images.length} images, ${values} values compared bit for bit\n`);
  }
  process.stdout.write(`${differences} differences\n`);
  process.exit(differences === 0 ? 0 : 1);
}

const images = verificationImages(Number(args.seed), Number(args.documents));
const before = await yardstick();
log(`yardstick before: ${Math.round(before)} requests/s`);
const samples = builds.map(() => ({}));
for (let round = 0; round < Number(args.rounds); round++) {
  const order = round % 2 === 0 ? [0, 1] : [1, 0];
  for (const which of order) {
    const perSide = runChild(builds[which], 'cpu', images);
    for (const [side, values] of Object.entries(perSide)) (samples[which][side] ??= []).push(...values);
    log(
      `round ${round + 1} ${which === 0 ? 'before' : 'after'}: ${Object.entries(perSide)
        .map(([side, values]) => `${side} ${mean(values).toFixed(1)}`)
        .join(', ')} core-ms`,
    );
  }
}
const after = await yardstick();
log(`yardstick after: ${Math.round(after)} requests/s`);
const rows = ['front', 'back', 'front_angle'].map((side) => {
  const [was, is] = samples.map((perSide) => perSide[side]);
  return {
    side,
    before: { median: median(was), mean: mean(was) },
    after: { median: median(is), mean: mean(is) },
    samples: was.length,
  };
});
for (const { side, before: was, after: is, samples: count } of rows) {
  process.stdout.write(
    `${side.padEnd(12)} before median ${was.median.toFixed(1)} mean ${was.mean.toFixed(1)} core-ms, after median ${is.median.toFixed(1)} mean ${is.mean.toFixed(1)} (${count} samples each)\n`,
  );
}
process.stdout.write(`${JSON.stringify({ yardstick: { before, after }, builds, rows })}\n`);
