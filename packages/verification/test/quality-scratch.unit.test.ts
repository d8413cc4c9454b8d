import sharp from 'sharp';
import { assessQuality, type QualityReport } from '../src/quality';
import { releaseQualityBuffers, reuseQualityBuffers } from '../src/quality/scratch';

/**
 * The quality helper keeps its work buffers from photo to photo (quality/scratch.ts): a photo assessed
 * after another of a different size must get the very report it gets on fresh buffers, to the last bit.
 * A smaller photo after a larger one reads views of larger buffers that still hold the first photo's
 * planes and spectra (a spectrum not cleared adds the first photo's power into the second's); a larger one
 * after a smaller one needs them grown (a plane not grown drops the pixels past the old size).
 */

/** A deterministic photo-like raw RGB image: a gradient, noise, and a fine colour grid over part of it. */
function syntheticPhoto(
  width: number,
  height: number,
  seed: number,
): { data: Uint8Array; width: number; height: number; channels: 3 } {
  const data = new Uint8Array(width * height * 3);
  let state = seed >>> 0;
  const random = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const offset = (y * width + x) * 3;
      const base = 60 + (150 * (x + y)) / (width + height);
      const grid = x > width / 3 && (x % 5 < 2 || y % 7 === 0) ? 40 : 0;
      data[offset] = Math.min(255, base + grid + 20 * random());
      data[offset + 1] = Math.min(255, base * 0.9 + 20 * random());
      data[offset + 2] = Math.min(255, base * 1.1 - grid / 2 + 20 * random());
    }
  }
  return { data, width, height, channels: 3 };
}

const LARGE = syntheticPhoto(1200, 900, 1);
const SMALL = syntheticPhoto(700, 520, 2);

async function measures(image: typeof LARGE | Buffer): Promise<Omit<QualityReport, 'ms'>> {
  const { ms: _ms, ...report } = await assessQuality(image);
  return report;
}

describe('quality work buffers kept from photo to photo', () => {
  let fresh: { large: Omit<QualityReport, 'ms'>; small: Omit<QualityReport, 'ms'> };

  beforeAll(async () => {
    releaseQualityBuffers();
    fresh = { large: await measures(LARGE), small: await measures(SMALL) };
  });

  afterEach(() => releaseQualityBuffers());

  it('gives a smaller photo after a larger one the report of fresh buffers', async () => {
    reuseQualityBuffers();
    // toEqual compares numbers with Object.is: bit-identical, -0 and NaN included.
    expect(await measures(LARGE)).toEqual(fresh.large);
    expect(await measures(SMALL)).toEqual(fresh.small);
  });

  it('gives a larger photo after a smaller one the report of fresh buffers', async () => {
    reuseQualityBuffers();
    expect(await measures(SMALL)).toEqual(fresh.small);
    expect(await measures(LARGE)).toEqual(fresh.large);
  });

  it('keeps photos assessed concurrently apart', async () => {
    reuseQualityBuffers();
    const [large, small, again] = await Promise.all([measures(LARGE), measures(SMALL), measures(LARGE)]);
    expect(large).toEqual(fresh.large);
    expect(small).toEqual(fresh.small);
    expect(again).toEqual(fresh.large);
  });

  it('frees only what it decoded itself, never the bytes it was given', async () => {
    const jpeg = await sharp(LARGE.data, { raw: { width: LARGE.width, height: LARGE.height, channels: 3 } })
      .jpeg({ quality: 90 })
      .toBuffer();
    const copy = Buffer.from(jpeg);
    const onFresh = await measures(jpeg);
    reuseQualityBuffers();
    // Twice: the second decode must not find the first one's freed RGB, nor a detached JPEG.
    expect(await measures(jpeg)).toEqual(onFresh);
    expect(await measures(jpeg)).toEqual(onFresh);
    expect(jpeg.equals(copy)).toBe(true);
    expect(LARGE.data.byteLength).toBe(1200 * 900 * 3);
  });

  it('measures a spectrum, so that a stale one would show', () => {
    // The photos' spectra are not empty: a spectrum summed onto the previous photo's would differ.
    expect(fresh.large.screen.features.chroma_peak_prominence).toBeGreaterThan(0);
    expect(fresh.small.screen.features.luma_high_mid_ratio).not.toBe(fresh.large.screen.features.luma_high_mid_ratio);
  });
});
