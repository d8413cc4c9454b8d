#!/usr/bin/env node
// Face-match threshold, from two `run.mjs --dump` runs: `nice -n 10 node bench/faces/match.mjs --fit 11 --test 12`
// (after `node bench/faces/run.mjs --seed <s> --count 110 --dump` for both seeds). The pairs are what the
// service compares: a probe the challenge reads as straight (each live sequence's reference frame, and the
// selfies the model reads straight) against a document portrait. Portraits are taken twice: all of them,
// and only those whose face the model reads as frontal (|yaw| under the challenge's turn, 22°): a document
// photo is frontal, and a face the challenge would call turned is not one. Prints FAR and FRR at each
// threshold, the fitting seed's highest different-people pair, and the threshold above it.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(path.join(ROOT, 'packages/faces/package.json'));
const faces = require(path.join(ROOT, 'packages/faces/dist/index.js'));
const corpus = require(path.join(ROOT, 'packages/corpus/dist/index.js'));
const { values: args } = parseArgs({
  options: {
    fit: { type: 'string', default: '11' },
    test: { type: 'string', default: '12' },
    count: { type: 'string', default: '110' },
  },
});
const r3 = (value) => Math.round(value * 1000) / 1000;
const short = (id) => id.replace('faceapi-', '');

async function pairsOf(seed) {
  const dump = JSON.parse(fs.readFileSync(path.join(ROOT, 'bench/results', `faces-s${seed}-n${args.count}-frames.json`), 'utf8'));
  const results = JSON.parse(
    fs.readFileSync(path.join(ROOT, 'bench/results', `faces-s${seed}-n${args.count}.json`), 'utf8'),
  ).results;
  const dir = path.join(ROOT, 'bench/results/faces-corpus', `s${seed}-v${corpus.FACE_CORPUS_VERSION}`);
  const ids = corpus.FACE_SOURCES.map((source) => source.id);
  const portraits = [];
  for (const [source, entry] of Object.entries(dump.selfies)) {
    const found = await faces.detectFaces(fs.readFileSync(path.join(dir, `portrait-${source}.jpg`)));
    portraits.push({ id: ids[Number(source)], embedding: entry.portrait, yaw: found.faces[0]?.pose?.yaw ?? null });
  }
  const probes = [];
  for (const [source, entry] of Object.entries(dump.selfies))
    if (entry.selfie && entry.selfiePose && faces.classifyPose(entry.selfiePose, faces.POSE_LIMITS) === 'straight')
      probes.push({ id: ids[Number(source)], what: 'selfie', embedding: entry.selfie });
  const byId = new Map(dump.sequences.map((sequence) => [sequence.id, sequence]));
  for (const result of results.filter((item) => item.kind === 'live' && item.verdict.referenceFrame !== null)) {
    const embedding = byId.get(result.id)?.frames[result.verdict.referenceFrame]?.faces[0]?.embedding ?? null;
    if (embedding) probes.push({ id: result.identity, what: result.id, embedding });
  }
  const pairs = [];
  for (const probe of probes)
    for (const portrait of portraits)
      if (portrait.embedding)
        pairs.push({
          same: probe.id === portrait.id,
          frontal: portrait.yaw !== null && Math.abs(portrait.yaw) < faces.POSE_LIMITS.turnMinYaw,
          name: `${short(probe.id)} (${probe.what}) × ${short(portrait.id)} portrait`,
          similarity: faces.faceSimilarity(probe.embedding, portrait.embedding),
        });
  const turned = portraits.filter(
    (portrait) => !(portrait.yaw !== null && Math.abs(portrait.yaw) < faces.POSE_LIMITS.turnMinYaw),
  );
  return { pairs, probes: probes.length, turned: turned.map((portrait) => `${short(portrait.id)} ${portrait.yaw?.toFixed(1)}°`) };
}

const rate = (part, whole) => `${part}/${whole} (${((100 * part) / Math.max(1, whole)).toFixed(1)}%)`;
const seeds = { fit: await pairsOf(Number(args.fit)), test: await pairsOf(Number(args.test)) };
for (const [role, data] of Object.entries(seeds))
  console.log(
    `seed ${role === 'fit' ? args.fit : args.test} (${role}): ${data.probes} probes; portraits read turned (not a document photo): ${data.turned.join(', ') || 'none'}`,
  );
for (const set of ['all portraits', 'frontal portraits']) {
  const pick = (data) => data.pairs.filter((pair) => set === 'all portraits' || pair.frontal);
  const fit = pick(seeds.fit);
  const different = fit.filter((pair) => !pair.same).sort((a, b) => b.similarity - a.similarity);
  const chosen = Math.ceil((different[0]?.similarity ?? 0) * 100 + 1e-9) / 100;
  console.log(`\n## ${set}\n`);
  console.log(
    `seed ${args.fit} highest different-people pairs: ${different
      .slice(0, 5)
      .map((pair) => `${pair.name} ${r3(pair.similarity)}`)
      .join('; ')}`,
  );
  console.log(`the lowest threshold (0.01 steps) above all of them: ${chosen.toFixed(2)}`);
  console.log(
    '\n| threshold | FAR seed ' +
      args.fit +
      ' | FRR seed ' +
      args.fit +
      ' | FAR seed ' +
      args.test +
      ' (held out) | FRR seed ' +
      args.test +
      ' (held out) |',
  );
  console.log('| --- | --- | --- | --- | --- |');
  for (const threshold of [0.6, 0.65, 0.68, 0.7, 0.72, 0.74, 0.76, 0.78, chosen]
    .filter((value, index, list) => list.indexOf(value) === index)
    .sort()) {
    const cells = [seeds.fit, seeds.test].flatMap((data) => {
      const of = pick(data);
      const diff = of.filter((pair) => !pair.same);
      const same = of.filter((pair) => pair.same);
      return [
        rate(diff.filter((pair) => pair.similarity >= threshold).length, diff.length),
        rate(same.filter((pair) => pair.similarity < threshold).length, same.length),
      ];
    });
    console.log(
      `| ${threshold.toFixed(2)}${threshold === chosen ? ' (chosen on seed ' + args.fit + ')' : ''} | ${cells.join(' | ')} |`,
    );
  }
  const testSame = pick(seeds.test)
    .filter((pair) => pair.same)
    .sort((a, b) => a.similarity - b.similarity);
  console.log(
    `seed ${args.test} lowest same-person pairs: ${testSame
      .slice(0, 4)
      .map((pair) => `${pair.name} ${r3(pair.similarity)}`)
      .join('; ')}`,
  );
}
