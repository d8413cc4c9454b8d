#!/usr/bin/env node
// Builds test mode's face sequences (assets/face-samples: JPEG frames and catalog.json) and the portrait
// that scripts/build-samples.mjs puts on the sample documents, from two faces of @vladmandic/face-api's
// demo photos (MIT, listed in docs/faces.md; read from node_modules, never downloaded). Head turns are
// synthesised: a cylindrical warp of the face and its mirror image (a mirrored face turned right is the
// same face turned left). Each sequence is kept only when the real pipeline (@idv/faces' checkLiveness,
// the service's own frame layout) gives the outcome it is offered for. Run after `pnpm build`:
//   node services/flow-runner/scripts/build-face-samples.mjs
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const OUT = path.join(HERE, '..', 'assets', 'face-samples');
const require = createRequire(import.meta.url);
const sharp = require('sharp');
const faces = require('@idv/faces');
// face-api is @idv/faces' devDependency: resolved from there.
const fromFaces = createRequire(require.resolve('@idv/faces/package.json'));
const DEMO = path.join(path.dirname(fromFaces.resolve('@vladmandic/face-api')), '..', 'demo');
const { FaceSampleCatalog } = require('../dist/adapters/face-samples.js');

/** The two people: their face's box at 1600 px wide (docs/faces.md measured these photos). */
const PEOPLE = {
  p: { photo: 'sample4.jpg', box: [765, 133, 270] },
  q: { photo: 'sample1.jpg', box: [278, 264, 294] },
};
/** Warp angles (degrees; negative turns the face to its right) and mirroring for each pose, two frames a pose. */
const POSES = {
  p: {
    straight: [
      [55, false],
      [55, true],
    ],
    right: [
      [-35, false],
      [-45, false],
    ],
    left: [
      [-35, true],
      [-45, true],
    ],
  },
  q: {
    straight: [
      [45, false],
      [45, true],
    ],
    right: [
      [-32, false],
      [-38, false],
    ],
    left: [
      [-32, true],
      [-38, true],
    ],
  },
};

async function faceCrop({ photo, box }, side = 320) {
  const [x, y, size] = box;
  const page = await sharp(path.join(DEMO, photo)).resize(1600).toBuffer({ resolveWithObject: true });
  const span = Math.round(size * 1.6);
  const left = Math.max(0, Math.round(x + size / 2 - span / 2));
  const top = Math.max(0, Math.round(y + size / 2 - span / 2));
  return sharp(page.data)
    .extract({ left, top, width: Math.min(span, page.info.width - left), height: Math.min(span, page.info.height - top) })
    .resize(side, side)
    .raw()
    .toBuffer({ resolveWithObject: true });
}

/**
 * The face as a cylinder turned by `degrees` about the vertical axis through the image's centre. With
 * `within: 'head'` only the head turns: the warp fades out over an ellipse around it, so the room and the
 * clothes around stay where they are from pose to pose, as they do in front of a phone (the liveness check
 * compares them, docs/faces.md "The scene along the sequence"). `within: 'band'` warps the whole central
 * band, as the first samples did; the sample documents' portrait is still made that way.
 */
function turn({ data, info }, degrees, mirror, within = 'head') {
  const { width, height, channels } = info;
  const out = Buffer.alloc(data.length);
  const cx = (width - 1) / 2;
  const cy = (height - 1) / 2;
  const radius = 0.32 * width;
  const theta = (degrees * Math.PI) / 180;
  const sourceColumn = (x) => {
    const dx = x - cx;
    if (Math.abs(dx) >= radius) return x;
    const phi = Math.asin(dx / radius) - theta;
    return Math.abs(phi) < Math.PI / 2 ? cx + radius * Math.sin(phi) : cx + Math.sign(phi) * radius;
  };
  for (let x = 0; x < width; x++) {
    const sx = Math.max(0, Math.min(width - 1, Math.round(sourceColumn(x))));
    for (let y = 0; y < height; y++) {
      const at = (y * width + x) * channels;
      const from = (y * width + sx) * channels;
      // 1 inside the head's ellipse, fading to 0 at its rim.
      const reach = Math.hypot((x - cx) / (0.4 * width), (y - cy) / (0.5 * height));
      const weight = within === 'band' ? 1 : Math.min(1, Math.max(0, (1 - reach) / 0.2));
      for (let channel = 0; channel < channels; channel++)
        out[at + channel] = Math.round(weight * data[from + channel] + (1 - weight) * data[at + channel]);
    }
  }
  const image = sharp(out, { raw: { width, height, channels } });
  return (mirror ? image.flop() : image).jpeg({ quality: 88 }).toBuffer();
}

async function personFrames(person) {
  const crop = await faceCrop(PEOPLE[person]);
  const frames = { portrait: await turn(crop, POSES[person].straight[0][0], false, 'band') };
  for (const [pose, list] of Object.entries(POSES[person])) {
    frames[pose] = [];
    for (const [degrees, mirror] of list) frames[pose].push(await turn(crop, degrees, mirror));
  }
  return frames;
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
const { portrait, ...p } = await personFrames('p');
const { portrait: _qPortrait, ...q } = await personFrames('q');
const grey = await sharp({ create: { width: 320, height: 320, channels: 3, background: { r: 128, g: 126, b: 120 } } })
  .jpeg()
  .toBuffer();

const WANTED = [
  {
    id: 'face-live',
    label: 'Persona en vivo, igual a la foto del documento de prueba',
    label_en: 'Live person, the same as the test document’s photo',
    outcome: 'approved',
    poses: p,
  },
  {
    id: 'face-mismatch',
    label: 'Persona en vivo, distinta de la del documento',
    label_en: 'Live person, not the one on the document',
    outcome: 'face_mismatch',
    poses: q,
  },
  {
    id: 'face-swap',
    label: 'La cara cambia de persona entre fotos',
    label_en: 'The face changes person between photos',
    outcome: 'liveness_spoof_detected',
    poses: { straight: p.straight, left: q.left, right: q.right },
  },
  {
    id: 'face-order',
    label: 'No sigue el orden pedido',
    label_en: 'Does not follow the order asked',
    outcome: 'liveness_challenge_failed',
    poses: p,
    order: 'reversed',
  },
  {
    id: 'face-none',
    label: 'Sin cara',
    label_en: 'No face',
    outcome: 'face_not_found',
    poses: { straight: [grey, grey], left: [grey, grey], right: [grey, grey] },
  },
];

const catalog = [];
for (const wanted of WANTED) {
  const entry = {
    id: wanted.id,
    label: wanted.label,
    label_en: wanted.label_en,
    outcome: wanted.outcome,
    poses: {},
    ...(wanted.order ? { order: wanted.order } : {}),
  };
  for (const [pose, images] of Object.entries(wanted.poses)) {
    entry.poses[pose] = images.map((image, index) => {
      const file = `${wanted.id}-${pose}-${index + 1}.jpg`;
      writeFileSync(path.join(OUT, file), image);
      return file;
    });
  }
  catalog.push(entry);
}
writeFileSync(path.join(OUT, 'catalog.json'), `${JSON.stringify(catalog, null, 2)}\n`);
// The portrait the sample documents carry: person p, facing the camera (scripts/build-samples.mjs).
writeFileSync(path.join(OUT, 'portrait.jpg'), portrait);

// Every sequence through the real pipeline, for two challenge orders; the documents' portrait for the comparison.
const samples = new FaceSampleCatalog(OUT);
let failures = 0;
for (const entry of catalog) {
  for (const steps of [
    ['straight', 'left', 'right'],
    ['right', 'straight', 'left'],
  ]) {
    const issuedAt = 1_800_000_000_000;
    const challenge = {
      nonce: 'n',
      attemptId: 'a',
      steps,
      issuedAt,
      expiresAt: issuedAt + 60_000,
      windowMs: 60_000,
      holdMs: 600,
      method: 'camera',
    };
    const now = issuedAt + 6000;
    const frames = await samples.frames(entry.id, challenge, now);
    const { verdict } = await faces.checkLiveness({
      challenge,
      nonce: 'n',
      attemptId: 'a',
      receivedAt: now,
      frames,
      context: { nonceAlreadyUsed: false },
    });
    let outcome = verdict.passed ? 'approved' : verdict.reason;
    let similarity = null;
    if (verdict.passed) {
      const comparison = await faces.compareFaceImages(frames[verdict.referenceFrame].image, portrait);
      similarity = comparison.similarity;
      if (!comparison.match) outcome = 'face_mismatch';
    }
    const ok = outcome === entry.outcome;
    if (!ok) failures += 1;
    process.stdout.write(
      `${entry.id} ${steps.join(',')}: ${outcome} (${verdict.detail}; held ${verdict.observed.join(',')}; min similarity ${verdict.minSimilarity}; document ${similarity})${ok ? '' : ' UNEXPECTED'}\n`,
    );
  }
}
process.stdout.write(`${catalog.length} face samples in ${path.relative(process.cwd(), OUT)}\n`);
// Live mode refuses the samples by their signatures (the document samples' too: they carry this portrait).
execFileSync(process.execPath, [path.join(HERE, 'build-sample-signatures.mjs')], { stdio: 'inherit' });
process.exit(failures > 0 ? 1 : 0);
