#!/usr/bin/env node
// Fits the liveness replay model (packages/faces/src/liveness.ts `REPLAY_MODEL`) on one seed's benchmark
// results and measures it on another's:
//
//   node bench/faces/fit-replay.mjs --fit bench/results/faces-s11-n110.json --test bench/results/faces-s12-n110.json [--write]
//
// Inputs are per sequence, the means over its frames of the replay cues (src/spoof.ts) and of human's
// antispoof and liveness scores: exactly what `judgeLiveness` computes (`replayInput`). Genuine camera
// frames are the live, still and swap sequences (a still or a swap is refused by other checks, but its
// frames are a camera's view of a face); replays are the screen and print sequences. A logistic
// regression over standardised inputs (class-balanced, L2), then the threshold: halfway (in log-odds)
// between the highest genuine sequence of the fitting seed and the next replay above it, so that no
// genuine sequence of that seed is refused. `--write` writes packages/faces/src/replay-model.json
// (rebuild @idv/faces after). Prints, for both seeds, how many of each kind the model refuses and what
// the benchmark's verdicts become with it.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(path.join(ROOT, 'packages/faces/package.json'));
const faces = require(path.join(ROOT, 'packages/faces/dist/index.js'));

const { values: args } = parseArgs({
  options: {
    fit: { type: 'string' },
    test: { type: 'string' },
    write: { type: 'boolean', default: false },
    lambda: { type: 'string', default: '0.05' },
  },
});
if (!args.fit) throw new Error('--fit <bench results JSON> is required');

const NAMES = faces.REPLAY_INPUT_NAMES;
const REPLAYS = new Set(['screen', 'print']);

function load(file) {
  const bench = JSON.parse(fs.readFileSync(file, 'utf8'));
  return bench.results.flatMap((result) => {
    const frames = result.frames
      .filter((frame) => frame.faces === 1 && frame.spoof)
      .map((frame) => ({ faces: [{ antispoof: frame.antispoof, liveness: frame.liveness }], spoof: frame.spoof }));
    // Fewer than 3 measured frames says little; the verdict had refused those sequences anyway (no face).
    const input = frames.length >= 3 ? faces.replayInput(frames) : null;
    return input === null ? [] : [{ id: result.id, kind: result.kind, passedOtherwise: passedOtherwise(result), input }];
  });
}

/** Whether every other check passed: the verdict passed, or only the replay check itself refused it. */
function passedOtherwise(result) {
  return result.verdict.passed || result.verdict.detail === 'replay';
}

const fitSet = load(args.fit);
const centre = {};
const scale = {};
for (const name of NAMES) {
  const values = fitSet.map((item) => item.input[name]);
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length;
  centre[name] = mean;
  scale[name] = Math.sqrt(variance) || 1;
}
const standardised = (input) => NAMES.map((name) => (input[name] - centre[name]) / scale[name]);
const xs = fitSet.map((item) => standardised(item.input));
const ys = fitSet.map((item) => (REPLAYS.has(item.kind) ? 1 : 0));
const positives = ys.filter((y) => y === 1).length;
const classWeight = (y) => (y === 1 ? fitSet.length / (2 * positives) : fitSet.length / (2 * (fitSet.length - positives)));

// Gradient descent on the class-weighted, L2-penalised log-loss.
const lambda = Number(args.lambda);
let weights = NAMES.map(() => 0);
let bias = 0;
for (let step = 0; step < 20000; step += 1) {
  const gradient = NAMES.map(() => 0);
  let gradientBias = 0;
  xs.forEach((x, index) => {
    const z = bias + x.reduce((sum, value, k) => sum + value * (weights[k] ?? 0), 0);
    const error = (1 / (1 + Math.exp(-z)) - (ys[index] ?? 0)) * classWeight(ys[index]);
    x.forEach((value, k) => (gradient[k] += error * value));
    gradientBias += error;
  });
  weights = weights.map((weight, k) => weight - 0.05 * (gradient[k] / xs.length + lambda * weight));
  bias -= 0.05 * (gradientBias / xs.length);
}
const logit = (input) => bias + standardised(input).reduce((sum, value, k) => sum + value * (weights[k] ?? 0), 0);
const genuineLogits = fitSet.filter((item) => !REPLAYS.has(item.kind)).map((item) => logit(item.input));
const maxGenuine = Math.max(...genuineLogits);
const replayAbove = fitSet
  .filter((item) => REPLAYS.has(item.kind))
  .map((item) => logit(item.input))
  .filter((value) => value > maxGenuine);
const thresholdLogit = replayAbove.length === 0 ? maxGenuine + 1 : (maxGenuine + Math.min(...replayAbove)) / 2;
const r4 = (value) => Math.round(value * 1e4) / 1e4;
const model = {
  fittedOn: `${path.basename(args.fit)} (${fitSet.length} sequences), ${new Date().toISOString().slice(0, 10)}`,
  centre: Object.fromEntries(NAMES.map((name) => [name, r4(centre[name])])),
  scale: Object.fromEntries(NAMES.map((name) => [name, r4(scale[name])])),
  weights: Object.fromEntries(NAMES.map((name, k) => [name, r4(weights[k])])),
  bias: r4(bias),
  threshold: r4(1 / (1 + Math.exp(-thresholdLogit))),
};
console.log('model:', JSON.stringify(model, null, 1));

function report(label, set) {
  console.log(`\n## ${label}\n`);
  console.log(
    '| kind | sequences scored | refused as replay | accepted before → after (of those the other checks passed) | score min / p50 / max |',
  );
  console.log('| --- | --- | --- | --- | --- |');
  for (const kind of ['live', 'still', 'swap', 'screen', 'print']) {
    const of = set.filter((item) => item.kind === kind);
    const scores = of.map((item) => faces.replayScore(item.input, model)).sort((a, b) => a - b);
    const refused = scores.filter((score) => score >= model.threshold).length;
    const before = of.filter((item) => item.passedOtherwise).length;
    const after = of.filter((item) => item.passedOtherwise && faces.replayScore(item.input, model) < model.threshold).length;
    const q = (p) => (scores.length === 0 ? '–' : scores[Math.min(scores.length - 1, Math.floor(p * scores.length))].toFixed(3));
    console.log(`| ${kind} | ${of.length} | ${refused} | ${before} → ${after} | ${q(0)} / ${q(0.5)} / ${q(1)} |`);
  }
}
report(`fitting seed (${path.basename(args.fit)})`, fitSet);
if (args.test) report(`held-out seed (${path.basename(args.test)})`, load(args.test));

if (args.write) {
  const file = path.join(ROOT, 'packages/faces/src/replay-model.json');
  fs.writeFileSync(file, `${JSON.stringify(model, null, 1)}\n`);
  console.log(`\nwritten: ${path.relative(ROOT, file)} (rebuild @idv/faces)`);
}
