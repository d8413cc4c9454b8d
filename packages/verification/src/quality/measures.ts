import * as qualityCalibration from '../calibration/quality';
import type { PixelBox, RgbPixels } from './pixels';
import { overwrittenFloat32 } from './scratch';

// Pixel loops call these millions of times: aliased once here, because a global lookup per call is
// slow wherever the global object is not the realm's own (jest runs tests in such a context).
const { max, min, floor, round, ceil } = Math;
// Copied for the same reason: compiled to CommonJS, each use of an imported constant is a property read.
const { BLUR_SCALE_SIDE, WASHED_OUT_LEVEL } = qualityCalibration;

/**
 * The measures a person can act on: brightness (mean luma), glare (share of washed-out pixels) and
 * sharpness (variance of the Laplacian). Each is taken over the document's box when the caller knows it,
 * else over the whole image, and sampled so that a 1600 px photo costs a few milliseconds.
 */

/** Mean luma, 0–255, over every second pixel of the box. */
export function meanBrightness(pixels: RgbPixels, box: PixelBox): number {
  let sum = 0;
  let count = 0;
  for (let y = box.y0; y < box.y1; y += 2) {
    for (let x = box.x0; x < box.x1; x += 2) {
      sum += pixels.luma[y * pixels.width + x] ?? 0;
      count += 1;
    }
  }
  return count === 0 ? 0 : sum / count;
}

/** Glare: the share of washed-out pixels, every channel at or above `WASHED_OUT_LEVEL`. */
export function glareFraction(pixels: RgbPixels, box: PixelBox): number {
  let washed = 0;
  let count = 0;
  const { rgb, width } = pixels;
  for (let y = box.y0; y < box.y1; y += 2) {
    for (let x = box.x0; x < box.x1; x += 2) {
      const offset = (y * width + x) * 3;
      const lowest = min(rgb[offset] ?? 0, rgb[offset + 1] ?? 0, rgb[offset + 2] ?? 0);
      if (lowest >= WASHED_OUT_LEVEL) washed += 1;
      count += 1;
    }
  }
  return count === 0 ? 0 : washed / count;
}

/** The 4-neighbour Laplacian of a plane (row-major, `width` wide) at `index`. */
export function laplacianOf(plane: Float32Array, index: number, width: number): number {
  return (
    (plane[index - 1] ?? 0) +
    (plane[index + 1] ?? 0) +
    (plane[index - width] ?? 0) +
    (plane[index + width] ?? 0) -
    4 * (plane[index] ?? 0)
  );
}

/** `small` (`width`×`height`): the luma of the box averaged over `factor`×`factor` squares. */
function boxAverage(pixels: RgbPixels, box: PixelBox, factor: number, small: Float32Array, width: number, height: number): void {
  const area = factor * factor;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      let sum = 0;
      for (let dy = 0; dy < factor; dy += 1) {
        const row = (box.y0 + y * factor + dy) * pixels.width + box.x0 + x * factor;
        for (let dx = 0; dx < factor; dx += 1) sum += pixels.luma[row + dx] ?? 0;
      }
      small[y * width + x] = sum / area;
    }
  }
}

/**
 * Sharpness: variance of the 4-neighbour Laplacian of the luma, measured at `BLUR_SCALE_SIDE` px on the
 * long side (the image is box-averaged down to it first), so that the figure does not depend on the
 * upload's resolution and sensor noise is averaged away before it can pass for detail.
 */
export function laplacianVariance(pixels: RgbPixels, box: PixelBox): number {
  const factor = max(1, round(max(pixels.width, pixels.height) / BLUR_SCALE_SIDE));
  const width = floor((box.x1 - box.x0) / factor);
  const height = floor((box.y1 - box.y0) / factor);
  if (width < 3 || height < 3) return 0;
  // Every element is written below (either branch), so a kept buffer needs no clearing.
  const small = overwrittenFloat32('laplacian_small', width * height);
  const area = factor * factor;
  if (factor === 2) {
    // A 1600 px photo's case, unrolled: boxAverage's four additions in its order (0 + a is a: luma ≥ 0).
    const { luma } = pixels;
    for (let y = 0; y < height; y += 1) {
      let top = (box.y0 + y * 2) * pixels.width + box.x0;
      let bottom = top + pixels.width;
      for (let x = 0, at = y * width; x < width; x += 1, at += 1, top += 2, bottom += 2) {
        small[at] = ((luma[top] ?? 0) + (luma[top + 1] ?? 0) + (luma[bottom] ?? 0) + (luma[bottom + 1] ?? 0)) / area;
      }
    }
  } else {
    boxAverage(pixels, box, factor, small, width, height);
  }
  let sum = 0;
  let squares = 0;
  let count = 0;
  for (let y = 1; y < height - 1; y += 1) {
    for (let x = 1; x < width - 1; x += 1) {
      const index = y * width + x;
      const value = laplacianOf(small, index, width);
      sum += value;
      squares += value * value;
      count += 1;
    }
  }
  const mean = sum / count;
  return squares / count - mean * mean;
}

/** Quantiles of the luma over the box (every second pixel), for tone statistics. */
export function lumaQuantiles(pixels: RgbPixels, box: PixelBox, quantiles: readonly number[]): number[] {
  const histogram = new Uint32Array(256);
  let count = 0;
  for (let y = box.y0; y < box.y1; y += 2) {
    for (let x = box.x0; x < box.x1; x += 2) {
      const value = pixels.luma[y * pixels.width + x] ?? 0;
      histogram[min(255, max(0, round(value)))] = (histogram[min(255, max(0, round(value)))] ?? 0) + 1;
      count += 1;
    }
  }
  return quantiles.map((quantile) => {
    const target = ceil(quantile * count);
    let seen = 0;
    for (let level = 0; level < 256; level += 1) {
      seen += histogram[level] ?? 0;
      if (seen >= target) return level;
    }
    return 255;
  });
}
