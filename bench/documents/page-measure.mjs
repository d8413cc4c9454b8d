// The camera page's own sharpness measure, run where the page runs it: in Chromium, by the `measure`
// function of services/flow-runner/assets/capture.js (lifted from the script as it is, so that a benchmark
// cannot drift from the page), over a given box of a photo instead of the guide of a video frame.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const CAPTURE = fs.readFileSync(path.join(ROOT, 'services/flow-runner/assets/capture.js'), 'utf8');

/** The page's limit: a frame measured under it holds the shutter. */
export const SHARP_ENOUGH = Number(/var SHARP_ENOUGH = (\d+);/.exec(CAPTURE)[1]);
const MEASURE_SIDE = Number(/var MEASURE_SIDE = (\d+);/.exec(CAPTURE)[1]);
// From the function's declaration to the closing brace at its indentation.
const MEASURE_SOURCE = /\n( {2})function measure\(source, width, height\) \{[\s\S]*?\n\1\}/.exec(CAPTURE)[0];

/**
 * A headless Chromium page holding the page's measure. `sharpness(jpeg, box)` measures the box (pixels of
 * the photo: x, y, width, height) as the page measures its guide.
 */
export async function openPageMeasure() {
  const { chromium } = createRequire(path.join(ROOT, 'services/flow-runner/package.json'))('playwright-core');
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
  });
  const page = await browser.newPage();
  await page.setContent('<!doctype html><title>measure</title>');
  await page.addScriptTag({
    content: `var MEASURE_SIDE = ${MEASURE_SIDE}; var probe = document.createElement('canvas'); var cardBox;
      function guideBox() { return cardBox; }
      ${MEASURE_SOURCE}
      window.measureBox = async function (base64, box) {
        var image = new Image();
        image.src = 'data:image/jpeg;base64,' + base64;
        await image.decode();
        cardBox = box;
        return measure(image, image.naturalWidth, image.naturalHeight).sharpness;
      };`,
  });
  return {
    sharpness: (jpeg, box) =>
      page.evaluate(
        ([base64, guide]) => window.measureBox(base64, guide),
        [jpeg.toString('base64'), { x: box.x, y: box.y, width: box.width, height: box.height }],
      ),
    close: () => browser.close(),
  };
}
