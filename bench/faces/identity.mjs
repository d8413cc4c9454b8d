#!/usr/bin/env node
// The liveness identity check under other rules, offline: `node bench/faces/identity.mjs
// bench/results/faces-s11-n110-frames.json [more dumps]` (dumps written by `run.mjs --dump`: every frame's
// faces with an embedding). Every rule is judged with `judgeLiveness` of @idv/faces for everything but
// identity (freshness, faces, times, poses, replay), so only the identity rule differs. Key-frame rules
// are judged over every draw of the key frames (one frame of each held pose), and a sequence counts as
// the share of draws that accept it: the expected number accepted, free of the luck of one draw.
//
// Prints, per dump and rule: live sequences accepted (expected) and refused by identity, swaps accepted
// (expected), other attacks accepted; and the similarities behind them: each embedded frame against the
// reference frame, by whose face it is and whether it is turned.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(path.join(ROOT, 'packages/faces/package.json'));
const faces = require(path.join(ROOT, 'packages/faces/dist/index.js'));
const r3 = (value) => (value === null || value === undefined ? null : Math.round(value * 1000) / 1000);
const percentile = (values, p) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
};

const issuedAt = 1_800_000_000_000;
const CONSTANT = Array.from({ length: 1024 }, () => 0.01);

/** Everything but identity: the sequence judged with one embedding for every face. */
function judgeRest(sequence) {
  const challenge = {
    ...faces.createChallenge({ attemptId: sequence.id, now: issuedAt, windowMs: 20_000, holdMs: 300, nonce: `n-${sequence.id}` }),
    steps: sequence.steps,
  };
  const frames = sequence.frames.map((frame) => ({
    atMs: frame.atMs,
    recapture: frame.recapture,
    spoof: frame.spoof,
    faces: frame.faces.map((face) => ({ ...face, embedding: CONSTANT })),
  }));
  const verdict = faces.judgeLiveness(
    challenge,
    { nonce: challenge.nonce, attemptId: sequence.id, receivedAt: issuedAt + (frames.at(-1)?.atMs ?? 0) + 200, frames },
    { nonceAlreadyUsed: false },
  );
  return { challenge, verdict, frames };
}

/** Every draw of the key frames: the runs' sizes from one draw, then their cartesian product. */
function keyFrameDraws(sequence, challenge) {
  const frames = sequence.frames.map((frame) => ({ ...frame, faces: frame.faces }));
  const sizes = [];
  faces.keyFrames(frames, challenge, (max) => {
    sizes.push(max);
    return 0;
  });
  let draws = [[]];
  for (const size of sizes) draws = draws.flatMap((draw) => Array.from({ length: size }, (_, value) => [...draw, value]));
  return draws.map((draw) => {
    let position = 0;
    return faces.keyFrames(frames, challenge, () => draw[position++] ?? 0);
  });
}

const classOf = (frame) =>
  frame.faces.length === 1 && frame.faces[0]?.pose ? faces.classifyPose(frame.faces[0].pose, faces.POSE_LIMITS) : null;

/**
 * Identity rules: each takes the sequence, the reference frame and the embedded frames, and says whether
 * the frames show one person.
 */
const similarity = (sequence, a, b) =>
  faces.faceSimilarity(sequence.frames[a].faces[0].embedding, sequence.frames[b].faces[0].embedding);
const RULES = {
  'reference ≥ 0.58 (in use)': (sequence, reference, embedded) =>
    embedded.every((index) => index === reference || similarity(sequence, reference, index) >= 0.58),
};
for (const floor of [0.6, 0.62, 0.65, 0.68, 0.7])
  RULES[`straight ≥ ${floor}, turned ≥ 0.58`] = (sequence, reference, embedded) =>
    embedded.every((index) => {
      if (index === reference) return true;
      const value = similarity(sequence, reference, index);
      return classOf(sequence.frames[index]) === 'straight' ? value >= floor : value >= 0.58;
    });
for (const floor of [0.5, 0.55, 0.6, 0.62, 0.65])
  RULES[`turned ≥ ${floor} (straight ≥ 0.58)`] = (sequence, reference, embedded) =>
    embedded.every((index) => {
      if (index === reference) return true;
      const value = similarity(sequence, reference, index);
      return classOf(sequence.frames[index]) === 'straight' ? value >= 0.58 : value >= floor;
    });
// Every straight frame embedded (they are the cheap comparison: small pose difference), turned key frames as in use.
RULES['every straight frame ≥ 0.7 + key frames ≥ 0.58'] = (sequence, reference, embedded) =>
  sequence.frames.every(
    (frame, index) => index === reference || classOf(frame) !== 'straight' || similarity(sequence, reference, index) >= 0.7,
  ) && embedded.every((index) => index === reference || similarity(sequence, reference, index) >= 0.58);
// Chain: the embedded frames in time order, each against the one before (and the first against the reference).
RULES['chain ≥ 0.58 (adjacent key frames)'] = (sequence, reference, embedded) => {
  const order = [...new Set([reference, ...embedded])].sort((a, b) => a - b);
  return order.every((index, position) => position === 0 || similarity(sequence, order[position - 1], index) >= 0.58);
};

for (const file of process.argv.slice(2)) {
  const dump = JSON.parse(fs.readFileSync(file, 'utf8'));
  console.log(`\n# ${path.relative(ROOT, file)}: seed ${dump.seed}, ${dump.sequences.length} sequences\n`);
  const judged = dump.sequences.map((sequence) => {
    const rest = judgeRest(sequence);
    const reference = rest.verdict.referenceFrame;
    const reachesIdentity = rest.verdict.passed;
    const draws = reachesIdentity && reference !== null ? keyFrameDraws(sequence, rest.challenge) : [];
    return { sequence, reference, reachesIdentity, draws };
  });

  // The similarities behind the rules (every frame embedded), against the reference frame.
  const buckets = {};
  for (const { sequence, reference } of judged.filter((item) => item.reference !== null && item.reachesIdentity)) {
    if (sequence.kind !== 'live' && sequence.kind !== 'swap') continue;
    const referenceWho = sequence.who[reference];
    sequence.frames.forEach((frame, index) => {
      if (index === reference || frame.faces.length !== 1) return;
      const key = `${sequence.who[index] === referenceWho ? 'same person' : 'other person'}, ${classOf(frame) === 'straight' ? 'straight' : 'turned'}`;
      (buckets[key] ??= []).push(similarity(sequence, reference, index));
    });
  }
  console.log(
    '| frame against the reference (live and swap sequences that reach the identity check) | frames | min | p5 | p50 | p95 | max |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const [key, values] of Object.entries(buckets).sort())
    console.log(
      `| ${key} | ${values.length} | ${r3(percentile(values, 0))} | ${r3(percentile(values, 5))} | ${r3(percentile(values, 50))} | ${r3(percentile(values, 95))} | ${r3(percentile(values, 100))} |`,
    );

  console.log(
    '\n| rule | live accepted (expected over key-frame draws) | live refused by identity (any draw) | swap accepted (expected) | other attacks accepted |',
  );
  console.log('| --- | --- | --- | --- | --- |');
  for (const [name, rule] of Object.entries(RULES)) {
    const tally = { live: 0, liveN: 0, liveIdentity: 0, swap: 0, swapN: 0, other: 0, otherN: 0 };
    for (const { sequence, reference, reachesIdentity, draws } of judged) {
      let accepted = 0;
      if (reachesIdentity && reference !== null && draws.length > 0)
        accepted = draws.filter((draw) => rule(sequence, reference, draw)).length / draws.length;
      if (sequence.kind === 'live') {
        tally.live += accepted;
        tally.liveN += 1;
        if (reachesIdentity && accepted < 1) tally.liveIdentity += 1;
      } else if (sequence.kind === 'swap') {
        tally.swap += accepted;
        tally.swapN += 1;
      } else {
        tally.other += accepted;
        tally.otherN += 1;
      }
    }
    console.log(
      `| ${name} | ${tally.live.toFixed(1)} / ${tally.liveN} | ${tally.liveIdentity} | ${tally.swap.toFixed(1)} / ${tally.swapN} | ${tally.other.toFixed(1)} / ${tally.otherN} |`,
    );
  }
}
