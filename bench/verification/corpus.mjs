// The images of bench/verification's genuine persons, made before anything is measured and cached in
// bench/results/verification-corpus/ (gitignored):
// - documents: DNI cards of packages/corpus (the 2012 card, with and without the CUIL field, in turn), drawn
//   from a fixed seed and reference date, each a clean front and back and a tilted (`perspective`) front of
//   the same card, 1600×1200 as the camera page uploads them. The front carries the portrait test mode's
//   face sequence shows (assets/face-samples/portrait.jpg), pasted as scripts/build-samples.mjs pastes it on
//   the sample DNI, so that the face step's comparison with the document has the person's own photo;
// - face frames: test mode's live face sequence (assets/face-samples, two frames a pose), each photographed
//   again (cropped 3 % a side and re-encoded, as the flow-runner's live e2e test does with anotherPhotoOf):
//   live mode refuses the public samples themselves, not another photo of the same face.
// Every document's expected fields come from the corpus's content, so each verdict can be checked against them.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const corpus = require(path.join(ROOT, 'packages/corpus/dist/index.js'));
const sharp = require(require.resolve('sharp', { paths: [path.join(ROOT, 'services/flow-runner')] }));

const FACE_SAMPLES = path.join(ROOT, 'services', 'flow-runner', 'assets', 'face-samples');
const PORTRAIT = path.join(FACE_SAMPLES, 'portrait.jpg');
/** Fixed, so that a cached corpus is the same bytes from run to run (the expiry check is against the real date: see `usable`). */
const REFERENCE_DATE = '2026-11-23';
const VARIANTS = ['dni_2012_9', 'dni_2012_8'];
/** Bumped when the images made for the same options change. */
const VERSION = 2;
const MIN_TILT_DEG = 20;

/** The front with the portrait pasted over the drawn one (build-samples.mjs's `withPortrait`). */
async function withPortrait(image) {
  const box = image.label.regions.photo?.bbox;
  if (!box) throw new Error(`${image.label.id}: the front has no photo region`);
  const inset = 0.04;
  const width = Math.round(box.width * (1 - 2 * inset));
  const height = Math.round(box.height * (1 - 2 * inset));
  const face = await sharp(PORTRAIT).resize(width, height, { fit: 'cover', position: 'top' }).toBuffer();
  return sharp(image.image)
    .composite([{ input: face, left: Math.round(box.x + box.width * inset), top: Math.round(box.y + box.height * inset) }])
    .jpeg({ quality: 90 })
    .toBuffer();
}

/** Another photo of the same image: 3 % cropped off each side, re-encoded (services/flow-runner/test/fixtures.ts). */
async function anotherPhotoOf(image) {
  const { width = 1, height = 1 } = await sharp(image).metadata();
  const left = Math.round(width * 0.03);
  const top = Math.round(height * 0.03);
  return sharp(image)
    .extract({ left, top, width: width - 2 * left, height: height - 2 * top })
    .jpeg({ quality: 90 })
    .toBuffer();
}

/**
 * The tilted front: the first of the corpus's `perspective` photos of the card (its retakes in turn) turned
 * at least 20° (yaw and pitch together; the profile draws 0–35°), as a person told to tilt the card does.
 * Chosen by the drawn geometry, not by any reader, so that every build is measured on the same photos.
 */
async function tiltedFront(index, options) {
  for (let photo = 0; photo < 12; photo++) {
    const images = await corpus.generateDocumentImages(index, { ...options, profiles: ['perspective'] }, photo);
    const front = images.find((image) => image.label.side === 'front');
    const { yaw_deg: yaw, pitch_deg: pitch } = front.label.degradation;
    if (Math.hypot(yaw, pitch) >= MIN_TILT_DEG) return front;
  }
  throw new Error(`document ${index}: no photo tilted ${MIN_TILT_DEG}° in 12`);
}

/** A document a genuine person shows: valid for at least a year from today, no defect, no registry test number. */
function usable(content, today) {
  const yearFromNow = new Date(`${today}T00:00:00Z`);
  yearFromNow.setUTCFullYear(yearFromNow.getUTCFullYear() + 1);
  return (
    !content.expired &&
    content.defects.length === 0 &&
    content.expected_reason_codes.length === 0 &&
    !/9[789]$/.test(content.fields.number) &&
    content.fields.expiry_date > yearFromNow.toISOString().slice(0, 10)
  );
}

/**
 * `count` documents of `seed` (the first usable ones) and the face frames, from the cache or made now.
 * Returns { documents: [{ id, variant, fields, sides: { front, back, front_angle } }], face: { straight, left, right } }.
 */
export async function verificationCorpus({ seed, count, log = () => undefined }) {
  const dir = path.join(ROOT, 'bench', 'results', 'verification-corpus', `v${VERSION}-s${seed}-n${count}`);
  const manifestFile = path.join(dir, 'manifest.json');
  if (!existsSync(manifestFile)) {
    const started = performance.now();
    mkdirSync(dir, { recursive: true });
    const today = new Date().toISOString().slice(0, 10);
    const base = {
      ...corpus.DEFAULT_GENERATE_OPTIONS,
      seed,
      referenceDate: REFERENCE_DATE,
      defectRate: 0,
      expiredRate: 0,
    };
    const documents = [];
    for (let index = 0; documents.length < count && index < count * 20; index++) {
      // One variant a document, in turn (the corpus's own assignment would give one profile one variant).
      const options = { ...base, variants: [VARIANTS[index % VARIANTS.length]] };
      const content = corpus.generateDocumentContent(index, { ...options, profiles: ['clean'] });
      if (!usable(content, today)) continue;
      const clean = await corpus.generateDocumentImages(index, { ...options, profiles: ['clean'] });
      const front = clean.find((image) => image.label.side === 'front');
      const back = clean.find((image) => image.label.side === 'back');
      const angled = await tiltedFront(index, options);
      const id = corpus.documentId(seed, index);
      const sides = { front: await withPortrait(front), back: back.image, front_angle: angled.image };
      for (const [side, bytes] of Object.entries(sides)) writeFileSync(path.join(dir, `${id}-${side}.jpg`), bytes);
      documents.push({ id, index, variant: content.variant, fields: content.fields });
      log(`corpus: ${id} (${content.variant})`);
    }
    const catalog = JSON.parse(readFileSync(path.join(FACE_SAMPLES, 'catalog.json'), 'utf8'));
    const live = catalog.find((entry) => entry.id === 'face-live');
    const face = {};
    for (const [pose, files] of Object.entries(live.poses)) {
      face[pose] = [];
      for (const [n, file] of files.entries()) {
        const name = `face-${pose}-${n + 1}.jpg`;
        writeFileSync(path.join(dir, name), await anotherPhotoOf(readFileSync(path.join(FACE_SAMPLES, file))));
        face[pose].push(name);
      }
    }
    writeFileSync(manifestFile, `${JSON.stringify({ seed, referenceDate: REFERENCE_DATE, documents, face }, null, 2)}\n`);
    log(`corpus: ${documents.length} documents and the face frames in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
  const read = (name) => readFileSync(path.join(dir, name));
  return {
    dir,
    documents: manifest.documents.map((document) => ({
      ...document,
      sides: Object.fromEntries(['front', 'back', 'front_angle'].map((side) => [side, read(`${document.id}-${side}.jpg`)])),
    })),
    face: Object.fromEntries(Object.entries(manifest.face).map(([pose, names]) => [pose, names.map(read)])),
  };
}
