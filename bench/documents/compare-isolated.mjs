#!/usr/bin/env node
// compare-builds.mjs with each build in a process of its own, read as the flow-runner reads:
//   node bench/documents/compare-isolated.mjs --before DIR [--after DIR] [--seed 42] [--count 16] [--front-angle]
//   node bench/documents/compare-isolated.mjs --before DIR [--after DIR] --reference DIR
// [--lift-caps] [--today 2026-11-30].
//
// compare-builds.mjs loads both builds into one process, which is right for code that stays inside a build
// but not for process-wide settings: libvips' cache and thread count, glibc's arenas, anything a thread
// changes for every thread. Here each build runs in its own process, with MALLOC_ARENA_MAX=2 as the
// flow-runner is deployed (deploy/k8s/base/flow-runner.yaml; set it to override), its main thread having
// loaded the build's dist/index.js as the service's does, and reads in one worker thread of that process
// through dist/worker.js's `read_side`, the pool's task. Each document is read by one build and then the
// other, so both see the same load. Every value is compared as compare-builds.mjs compares them (bytes as
// one value, wall-clock `ms` and `timings` aside); exits 1 on any difference.
//
// Corpus mode: documents 0 … count−1 of the cached corpus (`bench/documents/run.mjs` or generate-corpus
// makes it), each side as labelled, with `--front-angle` the front once more as `front_angle`, then
// `combineSides` over the readings. Reference mode: every image of DIR/images/INDEX.json (the shared
// reference set) read as a front, a back and a front_angle, each reading compared.
import { fork } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { ACCEPTED, compareValues, liftCaps } from './compare-support.mjs';

const require = createRequire(import.meta.url);
const SELF = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(SELF), '..', '..');

// ---------------------------------------------------------------- the reading thread of a build's process
if (!isMainThread) {
  const { packageDir, lift } = workerData;
  if (lift) liftCaps(packageDir);
  const runVerificationTask = require(path.join(packageDir, 'dist/worker.js')).default;
  const tooling = require(
    fs.existsSync(path.join(packageDir, 'dist/tooling.js'))
      ? path.join(packageDir, 'dist/tooling.js')
      : path.join(packageDir, 'dist/index.js'),
  );
  parentPort.on('message', async ({ sides, today, combine }) => {
    try {
      const readings = [];
      for (const { side, file } of sides) {
        const image = fs.readFileSync(file);
        readings.push((await runVerificationTask({ kind: 'read_side', side, image, acceptedTypes: ACCEPTED, today })).reading);
      }
      const document = combine ? tooling.combineSides(readings, { acceptedTypes: ACCEPTED, today }) : null;
      parentPort.postMessage({ ok: true, value: { sides: readings, document } });
    } catch (error) {
      parentPort.postMessage({ ok: false, error: error.stack ?? String(error) });
    }
  });
}

// ---------------------------------------------------------------- a build's process
function reader(packageDir, lift) {
  require(path.join(packageDir, 'dist/index.js'));
  const worker = new Worker(SELF, { workerData: { packageDir, lift }, resourceLimits: { maxOldGenerationSizeMb: 512 } });
  process.on('message', (message) => {
    if (message.kind === 'stop') {
      void worker.terminate().then(() => process.exit(0));
      return;
    }
    worker.once('message', (reply) => process.send(reply));
    worker.postMessage(message);
  });
  process.send({ ok: true, ready: true });
}

async function driver() {
  const { values: args } = parseArgs({
    options: {
      before: { type: 'string' },
      after: { type: 'string', default: path.join(ROOT, 'packages/verification') },
      seed: { type: 'string', default: '42' },
      count: { type: 'string', default: '16' },
      'front-angle': { type: 'boolean', default: false },
      reference: { type: 'string' },
      today: { type: 'string', default: '2026-11-30' },
      'lift-caps': { type: 'boolean', default: false },
    },
  });
  if (args.before === undefined) {
    process.stderr.write(
      'usage: compare-isolated.mjs --before DIR [--after DIR] [--seed N --count N --front-angle | --reference DIR]\n',
    );
    process.exit(2);
  }
  const log = (line) => process.stderr.write(`[compare-isolated] ${line}\n`);

  // What is read: a list of { id, sides: [{ side, file }], today, combine }.
  const items = [];
  if (args.reference !== undefined) {
    const images = path.join(path.resolve(args.reference), 'images');
    for (const entry of JSON.parse(fs.readFileSync(path.join(images, 'INDEX.json'), 'utf8'))) {
      for (const side of ['front', 'back', 'front_angle']) {
        items.push({
          id: `${entry.path}:${side}`,
          sides: [{ side, file: path.join(images, entry.path) }],
          today: args.today,
          combine: false,
        });
      }
    }
  } else {
    const corpus = require(path.join(ROOT, 'packages/corpus/dist/index.js'));
    const seed = Number(args.seed);
    const options = { ...corpus.DEFAULT_GENERATE_OPTIONS, seed };
    const dir = corpus.corpusCacheDir(path.join(ROOT, 'bench', 'results', 'corpus'), options);
    for (let index = 0; index < Number(args.count); index++) {
      const id = corpus.documentId(seed, index);
      const file = path.join(dir, `${id}.labels.json`);
      if (!fs.existsSync(file)) {
        log(`${path.relative(ROOT, file)} is missing: make the corpus first (bench/documents/run.mjs --seed ${seed})`);
        process.exit(2);
      }
      const labels = JSON.parse(fs.readFileSync(file, 'utf8'));
      const sides = labels.map((label) => ({ side: label.side, file: path.join(dir, label.file) }));
      const front = sides.find(({ side }) => side === 'front');
      if (args['front-angle'] && front !== undefined) sides.push({ side: 'front_angle', file: front.file });
      items.push({ id, sides, today: labels[0].reference_date, combine: true });
    }
  }

  const start = (dir) => {
    const child = fork(SELF, ['--reader', path.resolve(dir), args['lift-caps'] ? '1' : '0'], {
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { MALLOC_ARENA_MAX: '2', ...process.env },
    });
    const ask = (message) =>
      new Promise((resolve, reject) => {
        const onExit = (code) => reject(new Error(`${dir}: the reader exited with ${code}`));
        child.once('exit', onExit);
        child.once('message', (reply) => {
          child.off('exit', onExit);
          if (reply.ok) resolve(reply.value ?? reply);
          else reject(new Error(reply.error));
        });
        if (message !== null) child.send(message);
      });
    return { name: path.resolve(dir), child, ask, ready: ask(null) };
  };
  const before = start(args.before);
  const after = start(args.after);
  await Promise.all([before.ready, after.ready]);
  log(`before: ${before.name}`);
  log(`after: ${after.name}`);
  log(`MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX ?? '2'}, ${items.length} items`);

  const differences = [];
  let sides = 0;
  let values = 0;
  for (const [index, item] of items.entries()) {
    const task = { sides: item.sides, today: item.today, combine: item.combine };
    const old = await before.ask(task);
    const now = await after.ask(task);
    sides += item.sides.length;
    values += compareValues(old, now, item.id, differences);
    if ((index + 1) % 10 === 0) log(`${index + 1}/${items.length}, ${differences.length} differences so far`);
  }
  for (const build of [before, after]) build.child.send({ kind: 'stop' });

  for (const { at, before: was, after: is } of differences) {
    process.stdout.write(`${at}: ${JSON.stringify(was)} -> ${JSON.stringify(is)}\n`);
  }
  const what = args.reference !== undefined ? `reference set ${args.reference}` : `seed ${args.seed}`;
  process.stdout.write(
    `${what}: ${items.length} ${args.reference !== undefined ? 'readings' : 'documents'}, ${sides} sides read, ` +
      `${values} values compared, ${differences.length} differences${args['lift-caps'] ? ' (safety caps lifted)' : ''}\n`,
  );
  process.exit(differences.length === 0 ? 0 : 1);
}

if (isMainThread) {
  if (process.argv[2] === '--reader') reader(process.argv[3], process.argv[4] === '1');
  else await driver();
}
