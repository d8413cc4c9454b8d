import { noiseSigma } from '../src/image/noise';
import type { GreyRaster } from '../src/image/raster';

function raster(width: number, height: number, pixel: (x: number, y: number) => number): GreyRaster {
  const data = Buffer.alloc(width * height);
  for (let y = 0; y < height; y += 1)
    for (let x = 0; x < width; x += 1) data[y * width + x] = Math.max(0, Math.min(255, Math.round(pixel(x, y))));
  return { data, width, height };
}

/** Gaussian samples from a fixed seed (a 32-bit LCG and Box–Muller): the same noise on every run. */
function gaussianSource(seed: number): () => number {
  let state = seed >>> 0;
  const uniform = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state + 1) / 4294967297;
  };
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

describe('noiseSigma', () => {
  it('when the crop is flat or a smooth ramp, then it measures no noise', () => {
    expect(noiseSigma(raster(200, 100, () => 128))).toBe(0);
    expect(noiseSigma(raster(200, 100, (x, y) => 40 + x * 0.5 + y * 0.3))).toBeLessThan(0.5);
  });

  it.each([4, 10, 20])('when Gaussian noise of σ %i is added to a flat grey, then it measures σ within 10%', (sigma) => {
    const next = gaussianSource(sigma);

    const measured = noiseSigma(raster(400, 300, () => 128 + sigma * next()));

    expect(measured).toBeGreaterThan(sigma * 0.9);
    expect(measured).toBeLessThan(sigma * 1.1);
  });

  it('when the crop is too small for the mask, then it measures nothing rather than failing', () => {
    expect(noiseSigma(raster(2, 2, () => 0))).toBe(0);
  });
});
