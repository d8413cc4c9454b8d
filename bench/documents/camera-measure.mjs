#!/usr/bin/env node
// The camera page's sharpness against the service's, on the same photos: `node
// bench/documents/camera-measure.mjs [--seed 31] [--count 120] [--retakes 2]` (after `pnpm exec turbo run
// build`; Chromium at CHROMIUM_PATH or /usr/bin/chromium).
//
// The shutter's limit (services/flow-runner/assets/capture.js, SHARP_ENOUGH) was calibrated with the
// service's measure (packages/verification quality: the photo resized by sharp to 800 px on its long side,
// the variance of the Laplacian inside the card's box). The page measures in the browser: the guide's box
// drawn into a canvas at the same scale by Chromium's own resampling, then the same Laplacian. The two
// resamplers differ, and a photo near the limit can be held by one and taken by the other. This reads the
// corpus's front photos (the same photos and cache as printed.mjs) with both: the page's `measure` itself,
// lifted from capture.js and run in Chromium over the card's box, and the service's. It prints how the two
// compare, how often they disagree about the limit, and the page's limit that agrees best with the
// service's at its own.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SHARP_ENOUGH, openPageMeasure } from './page-measure.mjs';
import { PHOTO_SET_ARGS, RESULTS, ROOT, photoSetOptions, photosOf } from './printed-corpus.mjs';

const verification = createRequire(import.meta.url)(path.join(ROOT, 'packages/verification/dist/index.js'));
const { values: args } = parseArgs({ options: PHOTO_SET_ARGS });
const OPTIONS = photoSetOptions(args);
const PHOTOS = 1 + Number(args.retakes);

const log = (line) => process.stderr.write(`[bench:camera-measure] ${line}\n`);

async function serviceSharpness(image) {
  const { bbox } = image.label.regions.card;
  const { width, height } = image.label;
  const region = { left: bbox.x / width, top: bbox.y / height, width: bbox.width / width, height: bbox.height / height };
  return (await verification.assessImageQuality(image.image, { region })).blur;
}

async function main() {
  const pageMeasure = await openPageMeasure();
  const pairs = [];
  const count = Number(args.count);
  for (let index = 0; index < count; index += 1) {
    for (let photo = 0; photo < PHOTOS; photo += 1) {
      const images = await photosOf(index, OPTIONS, photo);
      const front = images?.find((entry) => entry.label.side === 'front');
      if (front === undefined) continue;
      const page = await pageMeasure.sharpness(front.image, front.label.regions.card.bbox);
      pairs.push({
        id: `${front.label.document_id}#${photo}`,
        profile: front.label.degradation.profile,
        blurSigma: front.label.degradation.blur_sigma,
        page,
        service: await serviceSharpness(front),
      });
    }
    if ((index + 1) % 10 === 0) log(`${index + 1}/${count} documents`);
  }
  await pageMeasure.close();
  report(pairs);
}

function report(pairs) {
  const ratios = pairs.map((p) => p.page / p.service).sort((a, b) => a - b);
  const at = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  const near = pairs.filter((p) => p.service >= SHARP_ENOUGH / 2 && p.service <= SHARP_ENOUGH * 2);
  const nearRatios = near.map((p) => p.page / p.service).sort((a, b) => a - b);
  const disagree = (limit) => pairs.filter((p) => p.page >= limit !== p.service >= SHARP_ENOUGH);
  console.log(`front photos: ${pairs.length} (seed ${args.seed}, ${args.count} documents, ${PHOTOS} photos a side)`);
  console.log(
    `page / service, all photos: p10 ${at(ratios, 0.1).toFixed(3)}  p50 ${at(ratios, 0.5).toFixed(3)}  p90 ${at(ratios, 0.9).toFixed(3)}`,
  );
  console.log(
    `page / service, service measure within ${SHARP_ENOUGH / 2}–${SHARP_ENOUGH * 2} (${near.length} photos): p10 ${at(nearRatios, 0.1).toFixed(3)}  p50 ${at(nearRatios, 0.5).toFixed(3)}  p90 ${at(nearRatios, 0.9).toFixed(3)}`,
  );
  const atLimit = disagree(SHARP_ENOUGH);
  const heldByPageOnly = atLimit.filter((p) => p.page < SHARP_ENOUGH).length;
  console.log(
    `at the page's limit ${SHARP_ENOUGH}: ${atLimit.length} photos judged otherwise than by the service's measure at the same limit (${heldByPageOnly} held by the page only, ${atLimit.length - heldByPageOnly} taken by the page only)`,
  );
  let best = { limit: SHARP_ENOUGH, count: atLimit.length };
  for (let limit = Math.round(SHARP_ENOUGH / 2); limit <= SHARP_ENOUGH * 2; limit += 5) {
    const n = disagree(limit).length;
    if (n < best.count || (n === best.count && Math.abs(limit - SHARP_ENOUGH) < Math.abs(best.limit - SHARP_ENOUGH)))
      best = { limit, count: n };
  }
  console.log(
    `the page's limit that agrees best with the service's measure at ${SHARP_ENOUGH}: ${best.limit} (${best.count} photos judged otherwise)`,
  );
  // The limit's own rule (docs/documents.md "Sharp photos at capture"): the lowest that lets through at most
  // 5% of the photos blurred past 2 px, with each measure.
  const blurred = pairs.filter((p) => p.blurSigma > 2);
  const sharper = pairs.filter((p) => p.blurSigma <= 2);
  for (const measure of ['service', 'page']) {
    const through = (limit) => blurred.filter((p) => p[measure] >= limit).length;
    let limit = 10;
    while (through(limit) > 0.05 * blurred.length) limit += 5;
    const held = sharper.filter((p) => p[measure] < limit).length;
    console.log(
      `${measure} measure: the lowest limit letting through at most 5% of the ${blurred.length} photos blurred past 2 px is ${limit} (${through(limit)} through, ${held}/${sharper.length} sharper photos held); at ${SHARP_ENOUGH}: ${through(SHARP_ENOUGH)} through, ${sharper.filter((p) => p[measure] < SHARP_ENOUGH).length} held`,
    );
  }
  const file = path.join(RESULTS, `camera-measure-s${args.seed}-n${args.count}.json`);
  fs.mkdirSync(RESULTS, { recursive: true });
  fs.writeFileSync(file, JSON.stringify(pairs, null, 1));
  console.log(`details: ${path.relative(ROOT, file)}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
