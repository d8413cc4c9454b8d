import FFT from 'fft.js';
import { columnsTransform, fftPlan, realRowTransform } from '../src/quality/fft';
import { TILE, planeSpectrumFeatures, planeTiles, spectrumFeatures, tileOrigins } from '../src/quality/spectrum';
import * as reference from './reference-spectrum';
import { SPECTRUM_BAND_HIGH, SPECTRUM_BAND_LOW } from '../src/calibration/quality';

/**
 * The spectrum's FFTs (src/quality/fft.ts) and the spectrum features against what they replaced: fft.js
 * and the spectrum code before 2026-11-30 (reference-spectrum.ts), which the recapture model was
 * calibrated on. Every number must be the same to the last bit, not merely close: `Object.is` on each.
 */

/** A seeded generator (mulberry32): the same inputs on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The index of the first element that differs bit for bit (Object.is), or -1. */
function firstDifference(expected: ArrayLike<number>, actual: ArrayLike<number>, length = expected.length): number {
  for (let index = 0; index < length; index += 1) if (!Object.is(expected[index], actual[index])) return index;
  return -1;
}

interface FftJs {
  realTransform(output: Float64Array, input: Float64Array): void;
  transform(output: Float64Array, input: Float64Array): void;
}

const SIZES = [4, 8, 16, 32, 64, 128, TILE, 512];

describe('the quality FFT (fft.ts)', () => {
  it.each(SIZES)("gives fft.js's realTransform bit for bit on random rows of %i", (size) => {
    const next = random(size);
    const engine = new FFT(size) as unknown as FftJs;
    const plan = fftPlan(size);
    for (let trial = 0; trial < 20; trial += 1) {
      // Pixel-like values windowed and centred, as the spectrum feeds it, and plain noise.
      const input = Float64Array.from({ length: size }, () => (trial % 2 === 0 ? (next() - 0.5) * 255 : next() * 1e6));
      const expected = new Float64Array(2 * size);
      engine.realTransform(expected, input);
      // At an offset, as the spectrum writes each row into its matrix.
      const actual = new Float64Array(4 * size).fill(Number.NaN);
      realRowTransform(plan, actual, input, size);
      expect(firstDifference(expected, actual.subarray(size, 3 * size), size + 2)).toBe(-1);
    }
  });

  it.each(SIZES)("gives fft.js's transform of each column bit for bit on random %i-row matrices", (size) => {
    const next = random(1000 + size);
    const engine = new FFT(size) as unknown as FftJs;
    const plan = fftPlan(size);
    const count = size / 2 + 1;
    // Longer input rows than output rows, as the spectrum passes its matrix of row transforms.
    const inputRow = 2 * size;
    const data = Float64Array.from({ length: inputRow * size }, () => (next() - 0.5) * 1e4);
    const out = new Float64Array(2 * count * size);
    columnsTransform(plan, out, data, count, inputRow);
    const column = new Float64Array(2 * size);
    const expected = new Float64Array(2 * size);
    for (let c = 0; c < count; c += 1) {
      for (let y = 0; y < size; y += 1) {
        column[2 * y] = data[y * inputRow + 2 * c] ?? 0;
        column[2 * y + 1] = data[y * inputRow + 2 * c + 1] ?? 0;
      }
      engine.transform(expected, column);
      const actual = Float64Array.from(
        { length: 2 * size },
        (_, index) => out[(index >> 1) * 2 * count + 2 * c + (index & 1)] ?? 0,
      );
      expect(firstDifference(expected, actual)).toBe(-1);
    }
  });

  it('is the discrete Fourier transform (a direct O(n²) sum, to rounding)', () => {
    const size = TILE;
    const next = random(7);
    const input = Float64Array.from({ length: size }, () => next() - 0.5);
    const out = new Float64Array(2 * size);
    realRowTransform(fftPlan(size), out, input);
    for (let k = 0; k <= size / 2; k += 1) {
      let re = 0;
      let im = 0;
      for (let n = 0; n < size; n += 1) {
        const angle = (-2 * Math.PI * k * n) / size;
        re += (input[n] ?? 0) * Math.cos(angle);
        im += (input[n] ?? 0) * Math.sin(angle);
      }
      expect(Math.abs((out[2 * k] ?? 0) - re)).toBeLessThan(1e-10);
      expect(Math.abs((out[2 * k + 1] ?? 0) - im)).toBeLessThan(1e-10);
    }
  });

  it('refuses a size that is not a power of two', () => {
    expect(() => fftPlan(96)).toThrow('power of two');
  });
});

describe('the spectrum features', () => {
  /** A plane like a photo's: smooth content, a periodic grating (a screen's grid), noise; 0–255. */
  function plane(width: number, height: number, seed: number): Float32Array {
    const next = random(seed);
    const period = 3 + next() * 6;
    const angle = next() * Math.PI;
    return Float32Array.from({ length: width * height }, (_, index) => {
      const x = index % width;
      const y = Math.floor(index / width);
      const content = 100 + 60 * Math.sin(x / 97) * Math.cos(y / 61);
      const grid = 20 * Math.cos((2 * Math.PI * (x * Math.cos(angle) + y * Math.sin(angle))) / period);
      return Math.min(255, Math.max(0, Math.round(content + grid + 30 * (next() - 0.5))));
    });
  }

  it.each([
    [1600, 1200, 1],
    [480, 640, 3],
    [900, 560, 4],
  ])('are the old code’s bit for bit on a %i×%i plane (seed %i)', (width, height, seed) => {
    const pixels = plane(width, height, seed);
    const origins = tileOrigins({ x0: 0, y0: 0, x1: width, y1: height });
    expect(origins.length).toBeGreaterThan(0);
    const expected = reference.spectrumFeatures(reference.planeTiles(pixels, width, origins));
    const fromPlane = planeSpectrumFeatures(pixels, width, origins);
    const fromTiles = spectrumFeatures(planeTiles(pixels, width, origins));
    for (const actual of [fromPlane, fromTiles]) {
      expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
      for (const name of ['peak_prominence', 'peak_count', 'periodic_prominence', 'high_mid_ratio', 'tiles'] as const) {
        expect(Object.is(actual[name], expected[name])).toBe(true);
      }
      expect(firstDifference(expected.band_power, actual.band_power)).toBe(-1);
    }
    // The grating is found: the comparison is of spectra with peaks, not of empty ones.
    expect(expected.peak_prominence).toBeGreaterThan(1);
  });

  it('are the old code’s on an offset box and on a plane with no tile', () => {
    const width = 1300;
    const pixels = plane(width, 900, 5);
    const origins = tileOrigins({ x0: 37, y0: 11, x1: 1211, y1: 877 });
    expect(planeSpectrumFeatures(pixels, width, origins)).toEqual(
      reference.spectrumFeatures(reference.planeTiles(pixels, width, origins)),
    );
    expect(planeSpectrumFeatures(pixels, width, [])).toEqual(reference.spectrumFeatures([]));
  });
});

describe("the spectrum's radii", () => {
  it('compare by their integer squares exactly as Math.hypot compared them, at every frequency and limit', () => {
    // The limits featuresOfPower compares a frequency's radius with: the bands, the peak band, 48.
    const limits = [4, 16, 48, 64, 128, SPECTRUM_BAND_LOW, SPECTRUM_BAND_HIGH];
    const disagreements: string[] = [];
    let boundaries = 0;
    for (let kx = 0; kx <= TILE / 2; kx += 1) {
      for (let ky = -TILE / 2 + 1; ky < TILE / 2; ky += 1) {
        const radius = Math.hypot(kx, ky);
        const squared = kx * kx + ky * ky;
        for (const limit of limits) {
          const square = limit * limit;
          if (squared >= square !== radius >= limit || squared <= square !== radius <= limit)
            disagreements.push(`(${kx}, ${ky}) at ${limit}`);
          if (squared === square) boundaries += 1;
        }
      }
    }
    expect(disagreements).toEqual([]);
    // The exact boundaries (e.g. 72² + 96² = 120²) are where a rounded hypot could have differed.
    expect(boundaries).toBeGreaterThan(6);
  });
});
