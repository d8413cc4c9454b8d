import bwipjs from 'bwip-js';
import sharp from 'sharp';
import { stopEngines } from '../src/tooling';
import { edgeBlurSigma, wienerDeblur } from '../src/image/deconvolve';
import { decodeGrey, type GreyRaster } from '../src/image/raster';
import { locateBarcodes } from '../src/readers/barcode-locator';
import { BARCODE_MIN_DEBLUR_SIGMA } from '../src/calibration/barcode';
import { searchBarcode, searchBlurredBarcode } from '../src/readers/barcode.reader';
import { WorkBudget } from '../src/readers/work-budget';

/**
 * A defocused PDF417 (blur σ of about two thirds of a module or more) gives zxing no pattern in any
 * crop, scale or tilt; its crop with the blur undone across the bars does.
 */
const DNI_PAYLOAD = '00123456789@PEREZ@JUAN CARLOS@M@26756539@B@15/03/1978@20/04/2017@203';

/** Bars of random widths (1–3 modules of `module` px), upright, on light paper, blurred by `sigma`. */
async function bars(options: { module: number; sigma: number }): Promise<{ sharp: GreyRaster; blurred: GreyRaster }> {
  const width = 400;
  const height = 60;
  const profile = new Uint8Array(width);
  let seed = 7;
  let x = 20;
  let dark = true;
  while (x < width - 20) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const run = options.module * (1 + (seed % 3));
    for (let i = x; i < Math.min(width - 20, x + run); i += 1) profile[i] = dark ? 1 : 0;
    x += run;
    dark = !dark;
  }
  const data = Buffer.alloc(width * height);
  for (let y = 0; y < height; y += 1) for (let i = 0; i < width; i += 1) data[y * width + i] = profile[i] === 1 ? 30 : 225;
  const raw = { raw: { width, height, channels: 1 as const } };
  const blurred = await sharp(data, raw).blur(options.sigma).extractChannel(0).raw().toBuffer();
  return { sharp: { data, width, height }, blurred: { data: blurred, width, height } };
}

function meanError(a: GreyRaster, b: GreyRaster): number {
  let sum = 0;
  // The middle rows and columns: the test is about the bars, not the crop's ends.
  for (let y = 10; y < a.height - 10; y += 1) {
    for (let x = 30; x < a.width - 30; x += 1) sum += Math.abs((a.data[y * a.width + x] ?? 0) - (b.data[y * b.width + x] ?? 0));
  }
  return sum / ((a.height - 20) * (a.width - 60));
}

/** A light card with a DNI PDF417 (3 px modules, 411×180 px) at its bottom right, defocused by `sigma` px. */
async function defocusedCard(sigma: number): Promise<GreyRaster> {
  const symbol = await bwipjs.toBuffer({ bcid: 'pdf417', text: DNI_PAYLOAD, scale: 3, height: 24 });
  const { width = 0, height = 0 } = await sharp(symbol).metadata();
  const card = await sharp({ create: { width: 1400, height: 880, channels: 3, background: '#e6eef0' } })
    .composite([{ input: symbol, left: 1360 - width, top: 840 - height }])
    .png()
    .toBuffer();
  return decodeGrey(await sharp(card).blur(sigma).jpeg({ quality: 88 }).toBuffer());
}

afterAll(async () => {
  await stopEngines();
});

describe('edgeBlurSigma', () => {
  it('when bars are blurred by σ 2 px, then the estimate is within 0.3 px of it, and a sharp print is below the deblur threshold', async () => {
    const { sharp: crisp, blurred } = await bars({ module: 3, sigma: 2 });

    const estimate = edgeBlurSigma(blurred);
    const crispEstimate = edgeBlurSigma(crisp);

    expect(estimate.axis).toBe('rows');
    expect(Math.abs(estimate.sigma - 2)).toBeLessThan(0.3);
    expect(crispEstimate.sigma).toBeLessThan(BARCODE_MIN_DEBLUR_SIGMA);
  });
});

describe('wienerDeblur', () => {
  it('when bars blurred by σ 2 px are deconvolved across them, then they come closer to the sharp bars', async () => {
    const { sharp: crisp, blurred } = await bars({ module: 3, sigma: 2 });

    const restored = wienerDeblur(blurred, 2, 0.001, 'rows');

    expect(meanError(restored, crisp)).toBeLessThan(0.8 * meanError(blurred, crisp));
  });

  it('when the bars lie horizontal, then deconvolving down the columns restores them the same way', async () => {
    const { blurred } = await bars({ module: 3, sigma: 2 });
    const transpose = (raster: GreyRaster): GreyRaster => {
      const data = Buffer.alloc(raster.data.length);
      for (let y = 0; y < raster.height; y += 1) {
        for (let x = 0; x < raster.width; x += 1) data[x * raster.height + y] = raster.data[y * raster.width + x] ?? 0;
      }
      return { data, width: raster.height, height: raster.width };
    };

    const across = wienerDeblur(blurred, 2, 0.001, 'rows');
    const down = wienerDeblur(transpose(blurred), 2, 0.001, edgeBlurSigma(transpose(blurred)).axis);

    expect(down.data.equals(transpose(across).data)).toBe(true);
  });
});

describe('searchBlurredBarcode', () => {
  it('when a PDF417 is defocused beyond what the located crops read, then its deblurred crop gives the payload', async () => {
    const raster = await defocusedCard(2.4);
    const located = locateBarcodes(raster);
    const accept = () => true;

    const plain = await searchBarcode(raster, {
      steps: located.flatMap((candidate) => [
        { angle: candidate.angle, regions: ['located'] as const, located: candidate },
        { angle: candidate.angle, regions: ['located'] as const, located: candidate, filter: 'smoothed' as const },
      ]),
      budget: new WorkBudget(24),
      accept,
    });
    const deblurred = await searchBlurredBarcode(raster, located, { budget: new WorkBudget(6), accept, formats: ['PDF417'] });

    expect(located.length).toBeGreaterThan(0);
    expect(plain.found).toBeNull();
    expect(deblurred.found?.text).toBe(DNI_PAYLOAD);
  });
});
