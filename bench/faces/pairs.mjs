#!/usr/bin/env node
// Face-match pairs, and why different people come close: `nice -n 10 node bench/faces/pairs.mjs [--seed 11]
// [--sheet]` (after `pnpm exec turbo run build`). For each of the 22 source people it embeds
//   raw       the photo's own face, cropped square at 1.6× the box, 320 px (bench/faces/models.mjs's crops),
//   selfie    the corpus's straight selfie (`straightSelfie`), and
//   portrait  the corpus's document portrait (`documentPortrait`),
// and prints, for each set of pairs, the different-people similarities (max, p99, how many at or above
// the thresholds in question) with the top pairs named, and the same-person ones. With `--sheet` it
// writes the top pairs' images side by side to bench/results/faces-pairs-s<seed>.png, to look at.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FACES_PKG = path.join(ROOT, 'packages/faces');
const require = createRequire(path.join(FACES_PKG, 'package.json'));
const sharp = require('sharp');
const DEMO = path.join(path.dirname(require.resolve('@vladmandic/face-api')), '..', 'demo');

const { values: args } = parseArgs({
  options: { seed: { type: 'string', default: '11' }, sheet: { type: 'boolean', default: false } },
});
const seed = Number(args.seed);
const faces = require(path.join(FACES_PKG, 'dist/index.js'));
const corpus = require(path.join(ROOT, 'packages/corpus/dist/index.js'));
const options = { seed, readPhoto: (name) => fs.readFileSync(path.join(DEMO, name)) };
const r3 = (value) => Math.round(value * 1000) / 1000;

async function rawCrop(source) {
  const [x, y, width, height] = source.box;
  const side = Math.round(1.6 * Math.max(width, height));
  const pad = side;
  const photo = await sharp(options.readPhoto(source.photo))
    .rotate()
    .resize(corpus.FACE_SOURCE_WIDTH)
    .extend({ top: pad, bottom: pad, left: pad, right: pad, extendWith: 'mirror' })
    .toBuffer();
  return sharp(photo)
    .extract({
      left: Math.round(x + width / 2 - side / 2 + pad),
      top: Math.round(y + height / 2 - side / 2 + pad),
      width: side,
      height: side,
    })
    .resize(320, 320)
    .jpeg({ quality: 90 })
    .toBuffer();
}

const people = [];
for (const [index, source] of corpus.FACE_SOURCES.entries()) {
  const images = {
    raw: await rawCrop(source),
    selfie: await corpus.straightSelfie(index, options),
    portrait: await corpus.documentPortrait(index, options),
  };
  const embeddings = {};
  for (const [kind, bytes] of Object.entries(images)) {
    const found = await faces.detectFaces(bytes);
    embeddings[kind] = found.faces.length === 0 ? null : found.faces[0].embedding;
    if (found.faces.length !== 1) console.log(`${source.id} ${kind}: ${found.faces.length} faces`);
  }
  people.push({ id: source.id, images, embeddings });
}

function pairs(kindA, kindB) {
  const different = [];
  const same = [];
  for (const [i, a] of people.entries()) {
    for (const [j, b] of people.entries()) {
      if (kindA === kindB && j < i) continue;
      const [ea, eb] = [a.embeddings[kindA], b.embeddings[kindB]];
      if (ea === null || eb === null) continue;
      const similarity = faces.faceSimilarity(ea, eb);
      if (i === j) {
        if (kindA !== kindB) same.push({ a: a.id, b: b.id, similarity });
      } else different.push({ a: a.id, b: b.id, kindA, kindB, similarity });
    }
  }
  return { different: different.sort((p, q) => q.similarity - p.similarity), same };
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
};
const top = [];
console.log(`seed ${seed}, corpus version ${corpus.FACE_CORPUS_VERSION}, ${people.length} people`);
for (const [kindA, kindB] of [
  ['raw', 'raw'],
  ['selfie', 'selfie'],
  ['portrait', 'portrait'],
  ['selfie', 'portrait'],
  ['raw', 'portrait'],
  ['raw', 'selfie'],
]) {
  const { different, same } = pairs(kindA, kindB);
  const values = different.map((pair) => pair.similarity);
  const at = (threshold) => values.filter((value) => value >= threshold).length;
  console.log(
    `${kindA} × ${kindB}: ${values.length} different-people pairs, max ${r3(values[0] ?? 0)}, p99 ${r3(percentile(values, 99))}, p50 ${r3(percentile(values, 50))}; ≥0.60 ${at(0.6)}, ≥0.65 ${at(0.65)}, ≥0.70 ${at(0.7)}` +
      (same.length > 0 ? `; same person ${same.length}: min ${r3(Math.min(...same.map((pair) => pair.similarity)))}` : ''),
  );
  console.log(
    `  top: ${different
      .slice(0, 5)
      .map((pair) => `${pair.a.replace('faceapi-', '')}×${pair.b.replace('faceapi-', '')} ${r3(pair.similarity)}`)
      .join(', ')}`,
  );
  if (kindA !== 'raw' && kindB !== 'raw') top.push(...different.slice(0, 3));
}

if (args.sheet) {
  // Each row: a pair as the corpus shows it, then the same two people as their photo shows them.
  const tile = 200;
  const rows = top.sort((p, q) => q.similarity - p.similarity).slice(0, 6);
  const byId = new Map(people.map((person) => [person.id, person]));
  const composites = [];
  for (const [row, pair] of rows.entries()) {
    const a = byId.get(pair.a);
    const b = byId.get(pair.b);
    const cells = [a.images[pair.kindA], b.images[pair.kindB], a.images.raw, b.images.raw];
    for (const [column, bytes] of cells.entries())
      composites.push({
        input: await sharp(bytes)
          .resize(tile, Math.round(tile * 1.25), { fit: 'contain' })
          .toBuffer(),
        left: column * tile,
        top: row * Math.round(tile * 1.25),
      });
    console.log(
      `sheet row ${row}: ${pair.a} ${pair.kindA} × ${pair.b} ${pair.kindB} ${r3(pair.similarity)} (then their raw crops)`,
    );
  }
  const out = path.join(ROOT, 'bench/results', `faces-pairs-s${seed}.png`);
  await sharp({
    create: { width: 4 * tile, height: rows.length * Math.round(tile * 1.25), channels: 3, background: '#fff' },
  })
    .composite(composites)
    .png()
    .toFile(out);
  console.log(`written: ${path.relative(ROOT, out)}`);
}
