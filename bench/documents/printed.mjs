#!/usr/bin/env node
// The front's printed fields, measured: `node bench/documents/printed.mjs [--seed 31] [--count 120]
// [--retakes 2] [--variants dni_2012_8,dni_2012_9,dni_2009] [--profiles clean,tilt,blur,jpeg,low_light,glare]
// [--altered-rate 0.5] [--verification DIR] [--only 4,104]` (after `pnpm exec turbo run build`; also `pnpm bench:printed`;
// `--verification` reads the same photos with another build of packages/verification, for a comparison).
//
// 1. Generates DNI documents of the corpus under the easy degradations (clean, tilted up to 25°, blurred,
//    compressed, dim, glared), half of them with the printed surname altered by one letter while the
//    barcode and MRZ keep the true name (the corpus's `printed_surname_altered`), and for each its front
//    (and back) photographed again up to `--retakes` times (the corpus's retakes: the same card, another
//    photo under the same profile), into bench/results/corpus/ (gitignored, reused by later runs).
// 2. Reads each document as the flow does: a side is read by the service's own `readSide`; when the flow
//    would refuse it (the flow-runner's `captureProblems`: unreadable print, no barcode, a screen …) the
//    next photo of that side is read, up to the step's three attempts; the document is then judged by
//    `combineSides` over the sides taken, or fails as the flow fails it (`reasonOfProblem`).
// 3. Prints, per degradation and in all: every needed printed field read right on the first photo of
//    each front (and given back wrong), the expiry read from the front (on its first photo, and on the
//    photo the flow finally took), genuine documents accepted within
//    the attempts, altered prints caught (as a data mismatch, or as unreadable after the attempts), the
//    fronts asked again, and what the front costs (CPU and wall, the printed fields' share, OCR passes);
//    writes every document's details to bench/results/printed-s<seed>-n<count>.json.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadVerification } from './verification-build.mjs';
import { machineReference } from '../machine-reference.mjs';
import { SHARP_ENOUGH, openPageMeasure } from './page-measure.mjs';
import { PHOTO_SET_ARGS, RESULTS, ROOT, corpus, photoSetOptions, photosOf } from './printed-corpus.mjs';

const require = createRequire(import.meta.url);
// The flow's own rule for taking a side and for the reason a refused side ends the step with.
const { captureProblems, problemsAgainstFront, toStoredReading } = require(
  path.join(ROOT, 'services/flow-runner/dist/domain/capture-rules.js'),
);
const { reasonOfProblem } = require(path.join(ROOT, 'services/flow-runner/dist/domain/steps/document.js'));

const { values: args } = parseArgs({
  options: {
    ...PHOTO_SET_ARGS,
    'camera-hold': { type: 'string', default: '0' },
    // Only these documents of the set (indices, comma-separated), to look again at one that went wrong.
    only: { type: 'string', default: '' },
    // Another build of the reader to read the same photos with (its package folder), for a comparison.
    verification: { type: 'string', default: path.join(ROOT, 'packages/verification') },
  },
});
const verification = loadVerification(path.resolve(args.verification));
const SEED = Number(args.seed);
const COUNT = Number(args.count);
const ATTEMPTS = 1 + Number(args.retakes);
// With `--camera-hold N`, each photo is taken as the camera page takes it (capture.js): a frame whose sharpness
// inside the card guide is under the page's limit holds the shutter, which looks at up to N frames in all and
// takes the first one at the limit or else the sharpest. The frames it looks at are modelled as N
// independent photos of the same card under the same profile (the corpus's further retakes: photos
// ATTEMPTS and up, never the ones the attempts use), a hand that steadies over the 2.5 s the shutter holds.
// 0 (the default): every photo is sent as it is, as a file chosen from the gallery.
const HOLD_FRAMES = Number(args['camera-hold']);
const OPTIONS = photoSetOptions(args);
const NEEDED = ['surname', 'given_names', 'number', 'sex', 'birth_date', 'expiry_date'];
const log = (line) => process.stderr.write(`[bench:printed] ${line}\n`);

/** A printed value as the reading gives it, against the print's own (the label's `printed`). */
function printedRight(field, value, printed) {
  if (value === null || value === undefined || printed === undefined) return null;
  const truth =
    field === 'number' ? printed.replace(/\./g, '') : field.endsWith('date') ? verification.normaliseDate(printed) : printed;
  return verification.compareFields({ [field]: value }, { [field]: truth }, [field]).length === 0;
}

async function readTimed(image, side, today) {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const reading = await verification.readSide(image, { side, acceptedTypes: ['dni', 'passport'], today });
  const cpu = process.cpuUsage(cpuBefore);
  return { reading, ms: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/**
 * The sharpness the camera page measures inside its guide, here the card's box (the person fills the
 * guide), by the page's own code in Chromium (page-measure.mjs): its resampling reads 7–15% above the
 * service's near the limit (camera-measure.mjs), so the service's measure would misjudge the hold.
 */
let pageMeasure;
async function guideSharpness(image) {
  pageMeasure ??= await openPageMeasure();
  return pageMeasure.sharpness(image.image, image.label.regions.card.bbox);
}

/** The photo of a side the person sends at an attempt: the corpus's, or with --camera-hold the one the shutter took. */
async function photoAt(index, sideName, attempt) {
  const frames = [attempt];
  for (let extra = 0; extra < HOLD_FRAMES - 1; extra += 1) frames.push(ATTEMPTS + attempt * (HOLD_FRAMES - 1) + extra);
  let best;
  for (const photo of frames) {
    const images = await photosOf(index, OPTIONS, photo);
    const image = images.find((entry) => entry.label.side === sideName);
    if (image === undefined || HOLD_FRAMES === 0) return image;
    const sharpness = await guideSharpness(image);
    if (best === undefined || sharpness > best.sharpness) best = { image, sharpness, frames: frames.indexOf(photo) + 1 };
    if (sharpness >= SHARP_ENOUGH) break;
  }
  return { ...best.image, held: best.frames };
}

/**
 * One side through the flow's attempts: the first photo the flow takes, or the last refusal. A back is
 * also judged against the taken front, as the flow does (`problemsAgainstFront`).
 */
async function sideThroughAttempts(index, sideName, today, takenFront = null) {
  const tries = [];
  // What the front's photos refused for their print settled, pooled with the next one's, as the flow does.
  let settledPrint = null;
  for (let photo = 0; photo < ATTEMPTS; photo += 1) {
    const image = await photoAt(index, sideName, photo);
    if (image === undefined) return { tries, taken: null, problem: null };
    const read = await readTimed(image.image, sideName, today);
    const reading = pooled(read.reading, settledPrint);
    const stored = toStoredReading(reading);
    const own = captureProblems(stored);
    const problems =
      own.length === 0 && takenFront !== null ? problemsAgainstFront(toStoredReading(takenFront), stored, sideName) : own;
    tries.push({ label: image.label, ...read, problems, ...(image.held === undefined ? {} : { framesLookedAt: image.held }) });
    if (problems.length === 0) return { tries, taken: reading, problem: null };
    if (problems[0] === 'print_unreadable')
      settledPrint = verification.settledPrintOf?.(read.reading, settledPrint) ?? settledPrint;
  }
  return { tries, taken: null, problem: tries[tries.length - 1].problems[0] };
}

/** A front with the gaps in its print filled from its earlier photos (a build without pooling: as read). */
function pooled(reading, settledPrint) {
  return verification.withSettledPrint === undefined ? reading : verification.withSettledPrint(reading, settledPrint);
}

function rate(hits, total) {
  return total === 0 ? '–' : `${((100 * hits) / total).toFixed(1)}% (${hits}/${total})`;
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function summarise(rows) {
  const firstFronts = rows.map((row) => row.front[0]).filter(Boolean);
  const fields = Object.fromEntries(
    NEEDED.map((field) => {
      const judged = firstFronts.filter((front) => front.label.printed[field] !== undefined);
      return [
        field,
        {
          right: judged.filter((front) => front.fields[field]?.right === true).length,
          wrong: judged.filter((front) => front.fields[field]?.right === false).length,
          total: judged.length,
        },
      ];
    }),
  );
  const everyFieldRight = firstFronts.filter((front) =>
    NEEDED.every((field) => front.label.printed[field] === undefined || front.fields[field]?.right === true),
  ).length;
  const fronts2012 = firstFronts.filter((front) => front.label.layout === 'dni_2012_front');
  const genuine = rows.filter((row) => row.expected.length === 0);
  const altered = rows.filter((row) => row.altered);
  const allFronts = rows.flatMap((row) => row.front);
  return {
    documents: rows.length,
    fields,
    everyFieldRight: [everyFieldRight, firstFronts.length],
    expiry2012: [fronts2012.filter((front) => front.fields.expiry_date?.right === true).length, fronts2012.length],
    expiry2012Wrong: fronts2012.filter((front) => front.fields.expiry_date?.right === false).length,
    // The expiry of the front the flow finally took (its last photo, when one was taken): what the expiry
    // check judges, where the first photo's figure says how often a person is not asked again for it.
    expiry2012Taken: expiryOnFrontTaken(rows),
    // The same on genuine cards only: on an altered one the flow stops asking once the print is shown to
    // differ (the card is refused whatever its expiry), so its front may be taken with the expiry unread.
    expiry2012GenuineTaken: expiryOnFrontTaken(genuine),
    genuineAccepted: [genuine.filter((row) => row.verdict.length === 0).length, genuine.length],
    genuineFirstPhoto: [genuine.filter((row) => row.verdict.length === 0 && row.front.length === 1).length, genuine.length],
    alteredCaught: [altered.filter((row) => row.verdict.length > 0).length, altered.length],
    alteredAsMismatch: altered.filter((row) => row.verdict.includes('document_data_mismatch')).length,
    alteredAsUnreadable: altered.filter(
      (row) => row.verdict.includes('document_unreadable') && !row.verdict.includes('document_data_mismatch'),
    ).length,
    correctVerdict: [rows.filter((row) => JSON.stringify(row.verdict) === JSON.stringify(row.expected)).length, rows.length],
    frontsAskedAgain: [allFronts.filter((front) => front.problems.length > 0).length, allFronts.length],
    printUnreadable: allFronts.filter((front) => front.problems.includes('print_unreadable')).length,
    frontCpuP50: percentile(
      allFronts.map((front) => front.cpuMs),
      50,
    ),
    frontCpuP90: percentile(
      allFronts.map((front) => front.cpuMs),
      90,
    ),
    frontWallP50: percentile(
      allFronts.map((front) => front.ms),
      50,
    ),
    printedWallP50: percentile(
      allFronts.map((front) => front.printedMs),
      50,
    ),
    printedWallP90: percentile(
      allFronts.map((front) => front.printedMs),
      90,
    ),
    passesP50: percentile(
      allFronts.map((front) => front.passes),
      50,
    ),
    passesP90: percentile(
      allFronts.map((front) => front.passes),
      90,
    ),
  };
}

/** The 2012 fronts among `rows` whose front the flow took with its expiry read right, and how many there are. */
function expiryOnFrontTaken(rows) {
  const fronts2012 = rows.filter((row) => row.front[0]?.label.layout === 'dni_2012_front');
  return [
    fronts2012.filter((row) => row.frontTaken && row.front.at(-1)?.fields.expiry_date?.right === true).length,
    fronts2012.length,
  ];
}

function line(name, s) {
  const f = (field) =>
    `${s.fields[field].right}/${s.fields[field].total}${s.fields[field].wrong > 0 ? ` (${s.fields[field].wrong} wrong)` : ''}`;
  return `| ${name} | ${s.documents} | ${NEEDED.map(f).join(' | ')} | ${rate(...s.everyFieldRight)} | ${rate(...s.expiry2012)} | ${rate(...s.expiry2012Taken)} | ${rate(...s.expiry2012GenuineTaken)} | ${rate(...s.genuineAccepted)} | ${rate(...s.alteredCaught)} (${s.alteredAsMismatch} mismatch, ${s.alteredAsUnreadable} unreadable) | ${rate(...s.frontsAskedAgain)} | ${Math.round(s.frontCpuP50)} / ${Math.round(s.frontCpuP90)} | ${Math.round(s.printedWallP50)} / ${Math.round(s.printedWallP90)} | ${s.passesP50} / ${s.passesP90} |`;
}

/** Per genuine document not accepted, why: each front photo's unsettled needed fields and what was last read of them. */
function refusedGenuine(rows) {
  return rows
    .filter((row) => row.expected.length === 0 && row.verdict.length > 0)
    .map((row) => {
      const photos = row.front.map((front) => {
        const unsettled = NEEDED.filter(
          (field) =>
            front.label.printed[field] !== undefined && front.status !== null && (front.status[field] ?? 'unread') === 'unread',
        );
        const why = unsettled.map((field) => `${field} ${JSON.stringify(front.raw?.[field]?.text ?? null)}`).join(', ');
        return why === '' ? front.problems.join(',') || 'taken' : why;
      });
      return `- ${row.id} (${row.variant}, ${row.profile}): ${row.verdict.join(', ')}; front ${photos.map((p, i) => `#${i + 1} ${p}`).join('; ')}${row.backTries > 1 ? `; back photos ${row.backTries}` : ''}`;
    });
}

async function main() {
  log(`seed ${SEED}, ${COUNT} documents, up to ${ATTEMPTS} photos a side, ${OPTIONS.profiles.join(', ')}`);
  const yardstick = await machineReference();
  const rows = [];
  const started = performance.now();
  const indices = args.only === '' ? Array.from({ length: COUNT }, (_, index) => index) : args.only.split(',').map(Number);
  for (const index of indices) {
    const content = corpus.generateDocumentContent(index, OPTIONS);
    const today = content.reference_date;
    const type = content.fields.doc_type;
    const front = await sideThroughAttempts(index, 'front', today);
    // A passport has its data page only (the corpus has no angled photo of it).
    const back = type === 'passport' ? null : await sideThroughAttempts(index, 'back', today, front.taken);
    const refused = [front, back].find((side) => side !== null && side.taken === null);
    const verdict =
      refused !== undefined
        ? [reasonOfProblem(refused.problem ?? undefined)]
        : verification.combineSides(
            [front, back].filter((side) => side !== null).map((side) => side.taken),
            { acceptedTypes: [type], today, expectedType: type },
          ).reasons;
    const profile = front.tries[0]?.label.degradation.profile ?? 'none';
    rows.push({
      id: corpus.documentId(SEED, index),
      variant: content.variant,
      profile,
      altered: content.defects.includes('printed_surname_altered'),
      frontTaken: front.taken !== null,
      expected: content.expected_reason_codes,
      verdict,
      front: front.tries.map((attempt) => ({
        label: attempt.label,
        problems: attempt.problems,
        ...(attempt.framesLookedAt === undefined ? {} : { framesLookedAt: attempt.framesLookedAt }),
        ms: attempt.ms,
        cpuMs: attempt.cpuMs,
        printedMs: attempt.reading.timings.printed_ms,
        passes: attempt.reading.work.printed_ocr_passes,
        status: attempt.reading.printed?.status ?? null,
        // Every field's last read as the engine gave it: why a field was not settled.
        raw: attempt.reading.printed?.raw ?? null,
        fields: Object.fromEntries(
          NEEDED.map((field) => [
            field,
            {
              value: attempt.reading.printed?.fields[field] ?? null,
              right: printedRight(field, attempt.reading.printed?.fields[field], attempt.label.printed[field]),
            },
          ]),
        ),
      })),
      backTries: back?.tries.length ?? 0,
      // Each back photo's zone or barcode as read: why a back was asked again or judged.
      back: (back?.tries ?? []).map((attempt) => ({
        label: attempt.label.id,
        problems: attempt.problems,
        zone: attempt.reading.mrz?.lines ?? null,
        zoneValid: attempt.reading.mrz?.valid ?? null,
        barcode: attempt.reading.barcode_fields !== null,
        readingProblems: attempt.reading.problems,
      })),
    });
    if (rows.length % 10 === 0)
      log(`read ${rows.length}/${indices.length} documents (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
  // `stopReaders` in builds before 2026-11-29 (issue 39), which `--verification` may load.
  await (verification.stopEngines ?? verification.stopReaders)();
  const groups = [...OPTIONS.profiles.map((profile) => [profile, rows.filter((row) => row.profile === profile)]), ['all', rows]];
  const summaries = groups.map(([name, subset]) => [name, summarise(subset)]);
  const header = `| degradation | docs | ${NEEDED.map((field) => `${field} right`).join(' | ')} | every field right | expiry read (2012 fronts, first photo) | expiry read (2012 fronts, the front taken within ${ATTEMPTS} photos) | expiry read (genuine 2012 fronts, the front taken) | genuine accepted within ${ATTEMPTS} photos | altered caught | fronts asked again | front CPU ms p50 / p90 | printed fields wall ms p50 / p90 | printed OCR passes p50 / p90 |`;
  const text = [
    `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${os.cpus()[0]?.model.trim()} (Node ${process.version}), load average at the end ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')}; yardstick ${Math.round(yardstick).toLocaleString('en-US')} requests/s.`,
    `Corpus seed ${SEED}, ${COUNT} documents (${OPTIONS.variants.join(', ')}; ${OPTIONS.profiles.join(', ')}; printed surname altered at rate ${OPTIONS.defectRate}), up to ${ATTEMPTS} photos of each side${HOLD_FRAMES > 0 ? `, each taken by the camera's held shutter (up to ${HOLD_FRAMES} frames, modelled as independent photos)` : ', each sent as photographed'}, read in ${((performance.now() - started) / 1000).toFixed(0)} s.`,
    'Fields: on the first photo of each front, given back equal to the print (wrong: given back and not equal); the expiry also on the front the flow took (none taken: not read).',
    '',
    header,
    `|${'---|'.repeat(header.split('|').length - 2)}`,
    ...summaries.map(([name, s]) => line(name, s)),
    '',
    'Genuine documents not accepted: the verdict, then per photo of the front the needed fields not settled (their last read) or the problems.',
    ...refusedGenuine(rows),
  ].join('\n');
  process.stdout.write(`${text}\n`);
  fs.mkdirSync(RESULTS, { recursive: true });
  const other = path.resolve(args.verification) === path.join(ROOT, 'packages/verification') ? '' : '-other-build';
  const held = HOLD_FRAMES > 0 ? `-hold${HOLD_FRAMES}` : '';
  const only = args.only === '' ? '' : `-only${indices.join('_')}`;
  const file = path.join(RESULTS, `printed-s${SEED}-n${COUNT}${held}${other}${only}.json`);
  fs.writeFileSync(
    file,
    `${JSON.stringify({ seed: SEED, count: COUNT, attempts: ATTEMPTS, yardstick, summaries: Object.fromEntries(summaries), documents: rows.map((row) => ({ ...row, front: row.front.map((front) => ({ ...front, label: front.label.id })) })), text }, null, 2)}\n`,
  );
  log(`figures: ${path.relative(ROOT, file)}`);
  await pageMeasure?.close();
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
