#!/usr/bin/env node
// Measures what SAMPLE_MATCH_DISTANCE (src/adapters/sample-signatures.ts) separates: how far copies of the
// shipped samples (re-encoded, rescaled, cropped, brightened: packages/corpus's calibrate-angle copies)
// come from their sample, and how near other images come to any sample: corpus photos of every
// document variant and side (clean, perspective, glare, low light) and faces from @vladmandic/face-api's
// demo photos (the two the face samples were made from, cropped otherwise, and the four others).
// Figures go to docs/documents.md "Test samples in live mode". Run after `pnpm build`:
//   node services/flow-runner/scripts/measure-sample-matching.mjs [--count 8] [--seed 4004]
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const sharp = require('sharp');
const corpus = require('@idv/corpus');
const { COPIES } = require('@idv/corpus/dist/calibrate-angle.js');
const { perceptualSignature, signatureDistance } = require('@idv/verification');
const { SAMPLE_MATCH_DISTANCE } = require('../dist/adapters/sample-signatures.js');
const fromFaces = createRequire(require.resolve('@idv/faces/package.json'));
const DEMO = path.join(path.dirname(fromFaces.resolve('@vladmandic/face-api')), '..', 'demo');

const { values } = parseArgs({ options: { count: { type: 'string' }, seed: { type: 'string' } } });
const COUNT = Number(values.count ?? 8);
const SEED = Number(values.seed ?? 4004);
const ASSETS = path.join(HERE, '..', 'assets');
const { samples } = JSON.parse(readFileSync(path.join(ASSETS, 'sample-signatures.json'), 'utf8'));

const summary = (list) => {
  const sorted = [...list].sort((a, b) => a - b);
  return `${sorted[0]?.toFixed(4)}–${sorted.at(-1)?.toFixed(4)} (median ${sorted[Math.floor(sorted.length / 2)]?.toFixed(4)}, n ${sorted.length})`;
};
const nearestSample = (signature) => Math.min(...samples.map((sample) => signatureDistance(signature, sample.signature)));

// 1. Copies of every sample, against their own sample.
const copies = {};
for (const sample of samples) {
  const image = readFileSync(path.join(ASSETS, sample.files[0]));
  for (const [name, copy] of Object.entries(COPIES)) {
    (copies[name] ??= []).push(signatureDistance(sample.signature, await perceptualSignature(await copy(image))));
  }
}
process.stdout.write(
  `SAMPLE_MATCH_DISTANCE ${SAMPLE_MATCH_DISTANCE}\n\ncopies of the ${samples.length} samples, distance to their sample:\n`,
);
for (const [name, list] of Object.entries(copies)) {
  const caught = list.filter((distance) => distance <= SAMPLE_MATCH_DISTANCE).length;
  process.stdout.write(`  ${name}: ${summary(list)}; matched ${caught}/${list.length}\n`);
}

// 2. Other document photos: the nearest sample to each.
const others = {};
for (const variant of ['dni_2012_9', 'dni_2009', 'passport_arg', 'passport_foreign', 'licence']) {
  for (const profile of ['clean', 'perspective', 'glare', 'low_light']) {
    for (let index = 0; index < COUNT; index += 1) {
      const images = await corpus.generateDocumentImages(index, {
        ...corpus.DEFAULT_GENERATE_OPTIONS,
        seed: SEED,
        width: 1400,
        height: 1000,
        variants: [variant],
        profiles: [profile],
      });
      for (const { image, label } of images) {
        (others[`${variant} ${label.side}`] ??= []).push(nearestSample(await perceptualSignature(image)));
      }
    }
  }
  process.stderr.write(`[measure] ${variant}\n`);
}

// 3. Faces that are not the samples: the demo photos, whole and cropped around their middle at several sizes.
const faces = [];
for (const photo of ['sample1.jpg', 'sample2.jpg', 'sample3.jpg', 'sample4.jpg', 'sample5.jpg', 'sample6.jpg']) {
  const source = sharp(path.join(DEMO, photo));
  const { width, height } = await source.metadata();
  faces.push(nearestSample(await perceptualSignature(await sharp(path.join(DEMO, photo)).resize(320, 320).toBuffer())));
  for (const share of [0.3, 0.5, 0.7]) {
    for (const [fx, fy] of [
      [0.3, 0.3],
      [0.5, 0.4],
      [0.7, 0.3],
    ]) {
      const side = Math.round(Math.min(width, height) * share);
      const left = Math.max(0, Math.min(width - side, Math.round(width * fx - side / 2)));
      const top = Math.max(0, Math.min(height - side, Math.round(height * fy - side / 2)));
      const crop = await sharp(path.join(DEMO, photo))
        .extract({ left, top, width: side, height: side })
        .resize(320, 320)
        .toBuffer();
      faces.push(nearestSample(await perceptualSignature(crop)));
    }
  }
}

process.stdout.write(`\nother images, distance to the nearest sample:\n`);
for (const [name, list] of Object.entries(others)) {
  const caught = list.filter((distance) => distance <= SAMPLE_MATCH_DISTANCE).length;
  process.stdout.write(`  corpus ${name} (seed ${SEED}): ${summary(list)}; matched ${caught}/${list.length}\n`);
}
process.stdout.write(
  `  face-api demo photos and crops: ${summary(faces)}; matched ${faces.filter((d) => d <= SAMPLE_MATCH_DISTANCE).length}/${faces.length}\n`,
);
