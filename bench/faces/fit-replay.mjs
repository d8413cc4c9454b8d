#!/usr/bin/env node
// Fits the liveness replay model (packages/faces/src/liveness.ts `REPLAY_MODEL`) on one seed's benchmark
// results and measures it on another's:
//
//   node bench/faces/fit-replay.mjs --fit bench/results/faces-s11-n110.json --test bench/results/faces-s12-n110.json \
//     [--test …] [--lambda 0.05] [--without-human] [--cv] [--write]
//
// Inputs are per sequence, the means over its frames of the replay cues (src/spoof.ts) and of human's
// antispoof and liveness scores: exactly what `judgeLiveness` computes (`replayInput`). Genuine camera
// frames are the live, still and swap sequences (a still or a swap is refused by other checks, but its
// frames are a camera's view of a face); replays are the screen and print sequences. A logistic
// regression over standardised inputs (class-balanced, L2), then the threshold: halfway (in log-odds)
// between the highest genuine sequence of the fitting seed and the next replay above it, so that no
// genuine sequence of that seed is refused. `--write` writes packages/faces/src/calibration/replay-model.json
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
    test: { type: 'string', multiple: true },
    write: { type: 'boolean', default: false },
    lambda: { type: 'string', default: '0.05' },
    // The six replay cues alone (human's antispoof and liveness weigh 0): they overlap completely between
    // genuine frames and replays (docs/faces.md "Spoof signals").
    'without-human': { type: 'boolean', default: false },
    // Cross-validation on the fitting seed, one fold per person, over a grid of λ and both input sets.
    cv: { type: 'boolean', default: false },
    // The test-mode face samples made from real photos (services/flow-runner/assets/face-samples), as
    // genuine sequences outside the corpus: each sample's six frames, and each straight + turned pair
    // as the two-photo fallback sends them. Their backgrounds are real rooms, not the corpus's blur.
    samples: { type: 'boolean', default: false },
    // Measure the model in use (REPLAY_MODEL) instead of fitting one; --fit then only names the first seed.
    current: { type: 'boolean', default: false },
  },
});
if (!args.fit) throw new Error('--fit <bench results JSON>[,<another>] is required');

const ALL_NAMES = faces.REPLAY_INPUT_NAMES;
const HUMAN = new Set(['antispoof', 'liveness']);
const REPLAYS = new Set(['screen', 'print']);

function load(file) {
  const bench = JSON.parse(fs.readFileSync(file, 'utf8'));
  return bench.results.flatMap((result) => {
    const frames = result.frames
      .filter((frame) => frame.faces === 1 && frame.spoof)
      .map((frame) => ({ faces: [{ antispoof: frame.antispoof, liveness: frame.liveness }], spoof: frame.spoof }));
    // Fewer than 3 measured frames says little; the verdict had refused those sequences anyway (no face).
    const input = frames.length >= 3 ? faces.replayInput(frames) : null;
    return input === null
      ? []
      : [{ id: result.id, person: result.identity, kind: result.kind, passedOtherwise: passedOtherwise(result), input }];
  });
}

/** Whether every other check passed: the verdict passed, or only the replay check itself refused it. */
function passedOtherwise(result) {
  return result.verdict.passed || result.verdict.detail === 'replay';
}

/**
 * Class-balanced, L2-penalised logistic regression over standardised inputs (gradient descent), inputs
 * outside `names` weighing 0; the threshold halfway (in log-odds) between the highest genuine sequence and
 * the next replay above it.
 */
function fitModel(set, names, lambda) {
  const centre = {};
  const scale = {};
  for (const name of ALL_NAMES) {
    const values = set.map((item) => item.input[name]);
    const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
    const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length;
    centre[name] = mean;
    scale[name] = Math.sqrt(variance) || 1;
  }
  const standardised = (input) => names.map((name) => (input[name] - centre[name]) / scale[name]);
  const xs = set.map((item) => standardised(item.input));
  const ys = set.map((item) => (REPLAYS.has(item.kind) ? 1 : 0));
  const positives = ys.filter((y) => y === 1).length;
  const classWeight = (y) => (y === 1 ? set.length / (2 * positives) : set.length / (2 * (set.length - positives)));
  let weights = names.map(() => 0);
  let bias = 0;
  for (let step = 0; step < 20000; step += 1) {
    const gradient = names.map(() => 0);
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
  const maxGenuine = Math.max(...set.filter((item) => !REPLAYS.has(item.kind)).map((item) => logit(item.input)));
  const replayAbove = set
    .filter((item) => REPLAYS.has(item.kind))
    .map((item) => logit(item.input))
    .filter((value) => value > maxGenuine);
  const thresholdLogit = replayAbove.length === 0 ? maxGenuine + 1 : (maxGenuine + Math.min(...replayAbove)) / 2;
  const r4 = (value) => Math.round(value * 1e4) / 1e4;
  return {
    centre: Object.fromEntries(ALL_NAMES.map((name) => [name, r4(centre[name])])),
    scale: Object.fromEntries(ALL_NAMES.map((name) => [name, r4(scale[name])])),
    weights: Object.fromEntries(ALL_NAMES.map((name) => [name, names.includes(name) ? r4(weights[names.indexOf(name)]) : 0])),
    bias: r4(bias),
    threshold: r4(1 / (1 + Math.exp(-thresholdLogit))),
  };
}

/** The genuine test-mode samples' replay inputs (the models run on their frames, ~15 s). */
async function sampleInputs() {
  const dir = path.join(ROOT, 'services/flow-runner/assets/face-samples');
  const catalog = JSON.parse(fs.readFileSync(path.join(dir, 'catalog.json'), 'utf8'));
  const inputOf = async (files) => {
    const frames = [];
    for (const [index, file] of files.entries()) {
      const analysed = await faces.analyseFrame(fs.readFileSync(path.join(dir, file)), index, { embed: false });
      frames.push({ atMs: 0, faces: analysed.faces, recapture: analysed.recapture, spoof: analysed.spoof });
    }
    return faces.replayInput(frames);
  };
  const inputs = [];
  // face-none shows nobody; the others are camera frames of real people (face-swap: two of them).
  for (const sample of catalog.filter((entry) => entry.id !== 'face-none')) {
    inputs.push({ id: `${sample.id} (six frames)`, input: await inputOf(Object.values(sample.poses).flat()) });
    for (const turn of ['left', 'right'])
      for (const [position, straight] of sample.poses.straight.entries())
        inputs.push({ id: `${sample.id} straight + ${turn}`, input: await inputOf([straight, sample.poses[turn][position]]) });
  }
  return inputs.filter((item) => item.input !== null);
}

const fitFiles = args.fit.split(',');
const fitSet = fitFiles.flatMap(load);
const inputSets = { all: [...ALL_NAMES], 'without-human': ALL_NAMES.filter((name) => !HUMAN.has(name)) };

if (args.cv) {
  // Out-of-fold scores (each person's sequences scored by a model fitted without them), then how many
  // replays score above every genuine sequence: the detection at no false alarm the fold design allows.
  const people = [...new Set(fitSet.map((item) => item.person))];
  console.log(`## Cross-validation on the fitting seed, one fold per person (${people.length} people)\n`);
  console.log('| inputs | λ | replays above every genuine sequence | screens | prints |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const [label, names] of Object.entries(inputSets))
    for (const lambda of [0.003, 0.01, 0.03, 0.1]) {
      const scored = people.flatMap((person) => {
        const model = fitModel(
          fitSet.filter((item) => item.person !== person),
          names,
          lambda,
        );
        return fitSet
          .filter((item) => item.person === person)
          .map((item) => ({ ...item, score: faces.replayScore(item.input, { ...model, fittedOn: '' }) }));
      });
      const top = Math.max(...scored.filter((item) => !REPLAYS.has(item.kind)).map((item) => item.score));
      const above = (kind) => {
        const of = scored.filter((item) => (kind === undefined ? REPLAYS.has(item.kind) : item.kind === kind));
        return `${of.filter((item) => item.score > top).length}/${of.length}`;
      };
      console.log(`| ${label} | ${lambda} | ${above()} | ${above('screen')} | ${above('print')} |`);
    }
  console.log('');
}

const model = args.current
  ? faces.REPLAY_MODEL
  : {
      fittedOn: `${fitFiles.map((file) => path.basename(file)).join(' + ')} (${fitSet.length} sequences${args['without-human'] ? ', without human’s scores' : ''}, λ ${args.lambda}), ${new Date().toISOString().slice(0, 10)}`,
      ...fitModel(fitSet, inputSets[args['without-human'] ? 'without-human' : 'all'], Number(args.lambda)),
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
report(`fitting seed (${fitFiles.map((file) => path.basename(file)).join(' + ')})`, fitSet);
for (const file of args.test ?? []) report(`held-out seed (${path.basename(file)})`, load(file));
if (args.samples) {
  const scores = (await sampleInputs()).map((item) => ({ id: item.id, score: faces.replayScore(item.input, model) }));
  const refused = scores.filter((item) => item.score >= model.threshold);
  console.log(
    `\n## test-mode samples from real photos (genuine)\n\n${scores.length} sequences, refused as replay ${refused.length}${
      refused.length > 0 ? ` (${refused.map((item) => item.id).join(', ')})` : ''
    }; score max ${Math.max(...scores.map((item) => item.score)).toFixed(3)} against ${model.threshold}`,
  );
}

if (args.write && !args.current) {
  const file = path.join(ROOT, 'packages/faces/src/calibration/replay-model.json');
  fs.writeFileSync(file, `${JSON.stringify(model, null, 1)}\n`);
  console.log(`\nwritten: ${path.relative(ROOT, file)} (rebuild @idv/faces)`);
}
