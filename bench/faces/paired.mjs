#!/usr/bin/env node
// The face step of two builds, paired: `node bench/faces/paired.mjs --base PARENT [--seeds 11,12,13]
// [--count 25] [--rounds 2] [--threads 2]` (after `pnpm exec turbo run build` in both trees and
// `node bench/faces/run.mjs --seed S --count N --generate-only` for each seed). Under
// `flock /tmp/idv-bench.lock` on a shared machine. PARENT is a checkout of the build to pair with (a `git
// worktree` of the parent commit), built.
//
// Each round runs every seed's sequences through `judgeFaceStep` (the service's path: the images over a
// piscina pool of `--threads` threads of the build's worker, the live ones with their document portrait),
// once per build, the builds alternating (base first in odd rounds, this tree first in even ones), each
// in a child process of its own. Prints the CPU per face step of each build (all threads of the child),
// their ratio, the yardstick (bench/machine-reference.mjs) before and after, and compares the two builds'
// outcomes item by item: the verdict, its reason and detail, every score it rests on, every frame's faces
// (boxes, poses, the model's scores, the first values of each embedding), the spoof cues, the scene and
// the document comparison. Exits 1 when any item differs.
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { machineReference } from '../machine-reference.mjs';
import { startFaceWork } from './face-work.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');

const { values: args } = parseArgs({
  options: {
    base: { type: 'string' },
    seeds: { type: 'string', default: '11,12,13' },
    count: { type: 'string', default: '25' },
    rounds: { type: 'string', default: '2' },
    threads: { type: 'string', default: '2' },
    child: { type: 'string' },
    tree: { type: 'string' },
    seed: { type: 'string' },
  },
});

/** The child: one build's face step over one seed's sequences; the outcomes and the CPU back over IPC. */
async function child(tree, dir, seed, count, threads) {
  const require = createRequire(path.join(tree, 'packages/faces/package.json'));
  const faces = require(path.join(tree, 'packages/faces/dist/index.js'));
  // The key frames drawn with one fixed key, as bench/faces/run.mjs draws them: the same in both builds.
  const keyFrameKey = createHash('sha256').update('bench/faces key frames').digest();
  const { work, pool } = await startFaceWork(tree, faces, path.join(dir, 'portrait-0.jpg'), threads);
  const labels = fs
    .readdirSync(dir)
    .filter((name) => /^\d+\.json$/.test(name))
    .map((name) => JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')))
    .filter((label) => label.seed === seed && label.index < count)
    .sort((a, b) => a.index - b.index);
  const items = [];
  const started = process.cpuUsage();
  for (const label of labels) {
    const frames = label.frames.map((frame, position) => ({
      image: fs.readFileSync(path.join(dir, `${label.index}-${position}.jpg`)),
      atMs: frame.atMs,
    }));
    const issuedAt = 1_800_000_000_000;
    const challenge = {
      ...faces.createChallenge({ attemptId: label.id, now: issuedAt, windowMs: 20_000, holdMs: 300, nonce: `n-${label.id}` }),
      steps: label.steps,
    };
    const cpu = process.cpuUsage();
    const { liveness, document } = await faces.judgeFaceStep(
      {
        challenge,
        nonce: challenge.nonce,
        attemptId: label.id,
        receivedAt: issuedAt + (label.frames.at(-1)?.atMs ?? 0) + 200,
        frames,
        context: { nonceAlreadyUsed: false },
        keyFrameKey,
        ...(label.kind === 'live' ? { portrait: fs.readFileSync(path.join(dir, `portrait-${label.identityIndex}.jpg`)) } : {}),
      },
      work,
    );
    const used = process.cpuUsage(cpu);
    items.push({
      id: label.id,
      kind: label.kind,
      outcome: {
        verdict: liveness.verdict,
        frames: liveness.frames.map((frame) => ({
          faces: frame.faces.map((face) => ({ ...face, embedding: face.embedding?.slice(0, 8) ?? null })),
          recapture: frame.recapture,
          spoof: frame.spoof,
          scene: frame.scene,
        })),
        document,
      },
      cpuMs: (used.user + used.system) / 1000,
    });
  }
  const total = process.cpuUsage(started);
  await pool?.close();
  await new Promise((resolve) => process.send({ items, cpuMs: (total.user + total.system) / 1000 }, resolve));
}

if (args.child !== undefined) {
  await child(args.tree, args.child, Number(args.seed), Number(args.count), Number(args.threads));
  process.exit(0);
}

if (args.base === undefined) {
  console.error('usage: node bench/faces/paired.mjs --base <other tree> [--seeds 11,12,13] [--count 25] [--rounds 2]');
  process.exit(2);
}
const trees = { base: path.resolve(args.base), this: ROOT };
const seeds = args.seeds.split(',').map(Number);
const count = Number(args.count);
const rounds = Number(args.rounds);
const corpusVersion = createRequire(import.meta.url)(path.join(ROOT, 'packages/corpus/dist/index.js')).FACE_CORPUS_VERSION;

function runChild(tree, seed) {
  const dir = path.join(ROOT, 'bench/results/faces-corpus', `s${seed}-v${corpusVersion}`);
  return new Promise((resolve, reject) => {
    const worker = fork(
      fileURLToPath(import.meta.url),
      ['--child', dir, '--tree', tree, '--seed', String(seed), '--count', String(count), '--threads', args.threads],
      { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
    );
    worker.once('message', resolve);
    worker.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`child exited ${code}`))));
  });
}

const yardstickBefore = await machineReference();
const cpu = { base: [], this: [] };
const outcomes = { base: new Map(), this: new Map() };
for (let round = 1; round <= rounds; round += 1) {
  const order = round % 2 === 1 ? ['base', 'this'] : ['this', 'base'];
  for (const seed of seeds)
    for (const which of order) {
      const { items, cpuMs } = await runChild(trees[which], seed);
      cpu[which].push(...items.map((item) => item.cpuMs));
      for (const item of items) outcomes[which].set(`${seed}/${item.id}`, item);
      console.log(`round ${round} seed ${seed} ${which}: ${items.length} steps, ${Math.round(cpuMs)} CPU ms`);
    }
}
const yardstickAfter = await machineReference();

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
};
const mean = (values) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
console.log(`\nface step, ${args.threads} threads, seeds ${seeds.join('/')} × ${count} sequences × ${rounds} rounds`);
console.log('| build | steps | CPU ms per step mean | p50 | p95 |');
console.log('| --- | --- | --- | --- | --- |');
for (const which of ['base', 'this'])
  console.log(
    `| ${which} (${trees[which]}) | ${cpu[which].length} | ${mean(cpu[which]).toFixed(0)} | ${percentile(cpu[which], 50).toFixed(0)} | ${percentile(cpu[which], 95).toFixed(0)} |`,
  );
console.log(`this / base, mean CPU per step: ${(mean(cpu.this) / mean(cpu.base)).toFixed(3)}`);
console.log(`yardstick: ${JSON.stringify(yardstickBefore)} before, ${JSON.stringify(yardstickAfter)} after`);

const differing = [];
const tally = {};
for (const [key, base] of outcomes.base) {
  const mine = outcomes.this.get(key);
  if (JSON.stringify(mine?.outcome) !== JSON.stringify(base.outcome)) differing.push(key);
  const verdict = `${base.kind} ${base.outcome.verdict.passed ? 'accepted' : 'refused'}`;
  tally[verdict] = (tally[verdict] ?? 0) + 1;
}
console.log(
  `\noutcomes compared item by item: ${outcomes.base.size} items (base), ${outcomes.this.size} (this); ${
    differing.length
  } differ${differing.length > 0 ? `: ${differing.join(', ')}` : ''}`,
);
console.log(`base verdicts: ${JSON.stringify(tally)}`);
process.exit(differing.length > 0 || outcomes.base.size !== outcomes.this.size ? 1 : 0);
