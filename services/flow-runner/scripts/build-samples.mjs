#!/usr/bin/env node
// Builds test mode's sample documents (assets/samples: JPEGs and catalog.json) from the corpus, from a
// fixed seed, and keeps a sample only when the real pipeline (the service's own readSide and
// combineSides) gives it the outcome it is offered for. Run after changing the corpus or the readers:
//   node services/flow-runner/scripts/build-samples.mjs
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const OUT = path.join(HERE, '..', 'assets', 'samples');
const require = createRequire(import.meta.url);
const corpus = require('@idv/corpus');
const engine = require('@idv/verification');
const sharp = require('sharp');
// The service's own rule for taking a side (built: run `pnpm build` first).
const { captureProblems, problemsAgainstFront, toStoredReading } = require('../dist/adapters/capture-reader.js');

const SEED = 20261123;
const TODAY = '2026-11-23';
const BASE = { ...corpus.DEFAULT_GENERATE_OPTIONS, seed: SEED, width: 1400, height: 1000, referenceDate: TODAY };

/** What each sample is, how to find one in the corpus, and the outcome it must give. */
const WANTED = [
  {
    id: 'dni-ok',
    type: 'dni',
    variant: 'dni_2012_9',
    label: 'DNI válido',
    label_en: 'Valid DNI',
    outcome: 'approved',
    want: (d) => !d.expired && d.defects.length === 0,
  },
  {
    id: 'passport-ok',
    type: 'passport',
    variant: 'passport_arg',
    label: 'Pasaporte válido',
    label_en: 'Valid passport',
    outcome: 'approved',
    want: (d) => !d.expired && d.defects.length === 0,
  },
  {
    id: 'passport-expired',
    type: 'passport',
    variant: 'passport_arg',
    label: 'Pasaporte vencido',
    label_en: 'Expired passport',
    outcome: 'document_expired',
    expired: 1,
    want: (d) => d.expired && d.defects.length === 0,
  },
  {
    id: 'passport-mrz',
    type: 'passport',
    variant: 'passport_foreign',
    label: 'Pasaporte con MRZ adulterada',
    label_en: 'Passport with a tampered MRZ',
    outcome: 'document_mrz_invalid',
    defects: 1,
    want: (d) => !d.expired && d.defects.includes('mrz_check_digit'),
  },
  {
    id: 'dni-cuil',
    type: 'dni',
    variant: 'dni_2012_9',
    label: 'DNI con CUIL inválido',
    label_en: 'DNI with an invalid CUIL',
    outcome: 'document_cuil_invalid',
    defects: 1,
    want: (d) => !d.expired && d.defects.includes('cuil_check_digit'),
  },
  {
    id: 'dni-angle',
    type: 'dni',
    variant: 'dni_2012_9',
    label: 'Foto inclinada de otro DNI',
    label_en: 'Angled photo of another DNI',
    outcome: 'document_angle_mismatch',
    angleFrom: 1,
    want: (d) => !d.expired && d.defects.length === 0,
  },
  {
    id: 'dni-data',
    type: 'dni',
    variant: 'dni_2012_9',
    label: 'DNI con el número impreso alterado',
    label_en: 'DNI with an altered printed number',
    outcome: 'document_data_mismatch',
    defects: 1,
    want: (d) => !d.expired && d.defects.includes('printed_data_mismatch'),
  },
  {
    // Test mode's registry answers by the number's last two digits (97 mismatch, 99 never answers):
    // the document itself passes, and the registry step decides.
    id: 'dni-registry-mismatch',
    type: 'dni',
    variant: 'dni_2012_9',
    label: 'DNI que el registro no reconoce',
    label_en: 'DNI the registry does not recognise',
    outcome: 'document_registry_mismatch',
    pipelineOutcome: 'approved',
    registry: true,
    searchTo: 3000,
    want: (d) => !d.expired && d.defects.length === 0 && d.fields.number.endsWith('97'),
  },
  {
    id: 'dni-registry-unavailable',
    type: 'dni',
    variant: 'dni_2012_9',
    label: 'DNI con el registro sin responder',
    label_en: 'DNI with the registry not answering',
    outcome: 'document_registry_unavailable',
    pipelineOutcome: 'approved',
    registry: true,
    searchTo: 3000,
    want: (d) => !d.expired && d.defects.length === 0 && d.fields.number.endsWith('99'),
  },
  {
    // A refused side: chosen once per attempt, it fails the step when the attempts run out.
    id: 'dni-screen',
    type: 'dni',
    variant: 'dni_2012_9',
    label: 'Frente fotografiado de una pantalla',
    label_en: 'Front photographed from a screen',
    outcome: 'document_screen_detected',
    frontProfile: 'screen',
    refused: { front: 'screen' },
    want: (d) => !d.expired && d.defects.length === 0,
  },
  {
    id: 'dni-wrong-type',
    type: 'dni',
    variant: 'passport_arg',
    label: 'Un pasaporte en lugar del DNI',
    label_en: 'A passport instead of the DNI',
    outcome: 'document_type_mismatch',
    refused: { front: 'wrong_type' },
    want: (d) => !d.expired && d.defects.length === 0,
  },
];

// The corpus draws its portraits; the face step compares a live face with the document's portrait, so
// the sample documents carry a real one instead: the face test mode's "live" face sequence shows
// (assets/face-samples/portrait.jpg, built first by scripts/build-face-samples.mjs).
const PORTRAIT = path.join(HERE, '..', 'assets', 'face-samples', 'portrait.jpg');

/** The front with the portrait pasted over the drawn one (a clean photo's card is nearly square-on). */
async function withPortrait(image) {
  const box = image.label.regions.photo?.bbox;
  if (image.label.side !== 'front' || !box) return image;
  const inset = 0.04;
  const width = Math.round(box.width * (1 - 2 * inset));
  const height = Math.round(box.height * (1 - 2 * inset));
  const face = await sharp(PORTRAIT).resize(width, height, { fit: 'cover', position: 'top' }).toBuffer();
  const jpeg = await sharp(image.image)
    .composite([{ input: face, left: Math.round(box.x + box.width * inset), top: Math.round(box.y + box.height * inset) }])
    .jpeg({ quality: 90 })
    .toBuffer();
  return { ...image, image: jpeg };
}

async function photos(variant, index, profile, overrides = {}) {
  return corpus.generateDocumentImages(index, {
    ...BASE,
    variants: [variant],
    profiles: [profile],
    defectRate: 0,
    expiredRate: 0,
    ...overrides,
  });
}

async function verdict(type, sides) {
  const readings = [];
  for (const [side, image] of Object.entries(sides)) {
    readings.push(await engine.readSide(image, { side, acceptedTypes: [type], today: TODAY }));
  }
  const reading = engine.combineSides(readings, { acceptedTypes: [type], today: TODAY, expectedType: type });
  // Each side as the flow takes it: its own problems, then, after the front, what it says against the front.
  const front = readings.find((r) => r.side === 'front');
  const refused = readings
    .map((r) => [
      r.side,
      [
        ...captureProblems(toStoredReading(r)),
        ...(front && r.side !== 'front' ? problemsAgainstFront(toStoredReading(front), toStoredReading(r), r.side) : []),
      ],
    ])
    .filter(([, problems]) => problems.length > 0)
    .map(([side, problems]) => `${side}:${problems.join('+')}`);
  return { reasons: reading.reasons, refused };
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
const catalog = [];
for (const wanted of WANTED) {
  const overrides = { defectRate: wanted.defects ?? 0, expiredRate: wanted.expired ?? 0 };
  let built = null;
  for (let index = 0; index < (wanted.searchTo ?? 12) && !built; index++) {
    const content = corpus.generateDocumentContent(index, {
      ...BASE,
      variants: [wanted.variant],
      profiles: ['clean'],
      ...overrides,
    });
    if (!wanted.want(content)) continue;
    const clean = await Promise.all((await photos(wanted.variant, index, 'clean', overrides)).map(withPortrait));
    if (wanted.frontProfile) {
      const front = (await photos(wanted.variant, index, wanted.frontProfile, overrides)).find(
        (image) => image.label.side === 'front',
      );
      clean.splice(
        clean.findIndex((image) => image.label.side === 'front'),
        1,
        front,
      );
    }
    const angleIndex = index + (wanted.angleFrom ?? 0);
    const angled = await photos(wanted.variant, angleIndex, 'perspective', overrides);
    const sides = {};
    for (const image of clean) sides[image.label.side] = image.image;
    sides.front_angle = angled.find((image) => image.label.side === 'front').image;
    // A refused side leaves nothing for the document's other sides to do: only it is offered.
    if (wanted.refused) for (const side of Object.keys(sides)) if (!(side in wanted.refused)) delete sides[side];
    const result = await verdict(wanted.type, sides);
    const outcome = result.reasons[0] ?? 'approved';
    process.stdout.write(
      `${wanted.id} #${index}: ${outcome}${result.refused.length ? ` (refused ${result.refused.join(', ')})` : ''}\n`,
    );
    // A sample offered for a refusal must be refused for that reason first, and the others taken.
    const expectedRefusals = Object.entries(wanted.refused ?? {}).map(([side, problem]) => `${side}:${problem}`);
    const refusedAsExpected =
      result.refused.length === expectedRefusals.length &&
      result.refused.every((refusal) => expectedRefusals.some((expected) => refusal.startsWith(expected)));
    const expectedOutcome = wanted.pipelineOutcome ?? wanted.outcome;
    if (expectedRefusals.length > 0 ? !refusedAsExpected : outcome !== expectedOutcome || result.refused.length > 0) continue;
    built = { index, sides };
  }
  if (!built) {
    process.stdout.write(`${wanted.id}: no corpus document gives ${wanted.outcome}; left out\n`);
    continue;
  }
  const files = {};
  for (const [side, image] of Object.entries(built.sides)) {
    const file = `${wanted.id}-${side}.jpg`;
    writeFileSync(path.join(OUT, file), image);
    files[side] = file;
  }
  catalog.push({
    id: wanted.id,
    label: wanted.label,
    label_en: wanted.label_en,
    type: wanted.type,
    outcome: wanted.outcome,
    ...(wanted.registry ? { registry_check: true } : {}),
    seed: SEED,
    index: built.index,
    sides: files,
  });
}
writeFileSync(path.join(OUT, 'catalog.json'), `${JSON.stringify(catalog, null, 2)}\n`);
await engine.stopEngines();
// Live mode refuses the samples by their signatures, kept beside them.
execFileSync(process.execPath, [path.join(HERE, 'build-sample-signatures.mjs')], { stdio: 'inherit' });
process.stdout.write(`${catalog.length} samples in ${path.relative(process.cwd(), OUT)}\n`);
