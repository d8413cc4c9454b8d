import sharp from 'sharp';
import type { Homography } from './geometry';

// Pixel loops call these millions of times: aliased once here, because a global lookup per call is
// slow wherever the global object is not the realm's own (jest runs tests in such a context).
const { ceil, floor, max, min, round, sqrt } = Math;

/**
 * Images as plain arrays: `RgbImage` (float RGB, 0-255, the working space of the degradations, so that
 * several steps do not each round to 8 bits) and `RgbaImage` (8-bit RGBA, what sharp gives back).
 */
export interface RgbImage {
  width: number;
  height: number;
  data: Float32Array;
}

export interface RgbaImage {
  width: number;
  height: number;
  data: Uint8Array;
}

export function createRgbImage(width: number, height: number): RgbImage {
  return { width, height, data: new Float32Array(width * height * 3) };
}

export async function rasteriseSvg(svg: string): Promise<RgbaImage> {
  const { data, info } = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
}

export function toUint8Rgb(image: RgbImage): Buffer {
  const source = image.data;
  const out = Buffer.allocUnsafe(source.length);
  for (let index = 0; index < source.length; index += 1) {
    const value = source[index] ?? 0;
    // `| 0` truncates: adding 0.5 first rounds the non-negative values that remain after clamping.
    out[index] = value <= 0 ? 0 : value >= 255 ? 255 : (value + 0.5) | 0;
  }
  return out;
}

export function fromUint8Rgb(data: Uint8Array, width: number, height: number): RgbImage {
  return { width, height, data: Float32Array.from(data.subarray(0, width * height * 3)) };
}

/** Gaussian blur through libvips (separable, fast); rounds to 8 bits. */
export async function gaussianBlur(image: RgbImage, sigma: number): Promise<RgbImage> {
  if (sigma < 0.3) return image;
  const blurred = await sharp(toUint8Rgb(image), { raw: { width: image.width, height: image.height, channels: 3 } })
    .blur(sigma)
    .raw()
    .toBuffer();
  return fromUint8Rgb(blurred, image.width, image.height);
}

/** Resize through libvips (Lanczos when shrinking, as a display or printer driver would scale). */
export async function resizeRgb(image: RgbImage, width: number, height: number): Promise<RgbImage> {
  const resized = await sharp(toUint8Rgb(image), { raw: { width: image.width, height: image.height, channels: 3 } })
    .resize(width, height, { fit: 'fill', kernel: 'lanczos3' })
    .raw()
    .toBuffer();
  return fromUint8Rgb(resized, width, height);
}

export async function encodeJpeg(image: RgbImage, quality: number): Promise<Buffer> {
  return sharp(toUint8Rgb(image), { raw: { width: image.width, height: image.height, channels: 3 } })
    .jpeg({ quality, chromaSubsampling: '4:2:0', mozjpeg: false })
    .toBuffer();
}

export async function encodePng(image: RgbImage): Promise<Buffer> {
  return sharp(toUint8Rgb(image), { raw: { width: image.width, height: image.height, channels: 3 } })
    .png({ compressionLevel: 6 })
    .toBuffer();
}

/**
 * Draws `source` (with its alpha) over `target` through a perspective map: each target pixel is the mean
 * of `samples`×`samples` points mapped back into the source by `targetToSource`, which is what a camera
 * pixel integrating over its area sees (and keeps fine print from aliasing when the card is shrunk).
 * Only the pixels inside `bounds` are visited.
 */
export function warpOnto(
  target: RgbImage,
  source: RgbaImage,
  targetToSource: Homography,
  samples: number,
  bounds: { x0: number; y0: number; x1: number; y1: number } = { x0: 0, y0: 0, x1: target.width, y1: target.height },
): void {
  const [h0, h1, h2, h3, h4, h5, h6, h7, h8] = targetToSource;
  const step = 1 / samples;
  const weight = 1 / (samples * samples);
  const { width, data } = target;
  const src = source.data;
  const sourceWidth = source.width;
  const sourceHeight = source.height;
  const top = max(0, floor(bounds.y0));
  const bottom = min(target.height, ceil(bounds.y1));
  const left = max(0, floor(bounds.x0));
  const right = min(width, ceil(bounds.x1));
  for (let y = top; y < bottom; y += 1) {
    for (let x = left; x < right; x += 1) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < samples; sy += 1) {
        const py = y + (sy + 0.5) * step;
        for (let sx = 0; sx < samples; sx += 1) {
          const px = x + (sx + 0.5) * step;
          const w = h6 * px + h7 * py + h8;
          // Pixel-centre convention: source pixel i covers [i, i + 1).
          const fx = (h0 * px + h1 * py + h2) / w - 0.5;
          const fy = (h3 * px + h4 * py + h5) / w - 0.5;
          if (fx < -1 || fy < -1 || fx >= sourceWidth || fy >= sourceHeight) continue;
          const x0 = floor(fx);
          const y0 = floor(fy);
          const tx = fx - x0;
          const ty = fy - y0;
          for (let dy = 0; dy <= 1; dy += 1) {
            const yy = y0 + dy;
            if (yy < 0 || yy >= sourceHeight) continue;
            const wy = dy === 0 ? 1 - ty : ty;
            for (let dx = 0; dx <= 1; dx += 1) {
              const xx = x0 + dx;
              if (xx < 0 || xx >= sourceWidth) continue;
              const offset = (yy * sourceWidth + xx) * 4;
              const alpha = ((src[offset + 3] ?? 0) / 255) * wy * (dx === 0 ? 1 - tx : tx);
              r += (src[offset] ?? 0) * alpha;
              g += (src[offset + 1] ?? 0) * alpha;
              b += (src[offset + 2] ?? 0) * alpha;
              a += alpha;
            }
          }
        }
      }
      if (a === 0) continue;
      const offset = (y * width + x) * 3;
      const coverage = a * weight;
      // r, g, b are premultiplied by alpha: over-compositing is target × (1 − coverage) + colour.
      data[offset] = (data[offset] ?? 0) * (1 - coverage) + r * weight;
      data[offset + 1] = (data[offset + 1] ?? 0) * (1 - coverage) + g * weight;
      data[offset + 2] = (data[offset + 2] ?? 0) * (1 - coverage) + b * weight;
    }
  }
}

/** Bilinear sample of an RGB float image; coordinates outside clamp to the border. */
export function sampleRgb(source: RgbImage, x: number, y: number, out: Float32Array): void {
  const { width, height, data } = source;
  const fx = min(max(x - 0.5, 0), width - 1);
  const fy = min(max(y - 0.5, 0), height - 1);
  const x0 = floor(fx);
  const y0 = floor(fy);
  const x1 = min(x0 + 1, width - 1);
  const y1 = min(y0 + 1, height - 1);
  const tx = fx - x0;
  const ty = fy - y0;
  const o00 = (y0 * width + x0) * 3;
  const o10 = (y0 * width + x1) * 3;
  const o01 = (y1 * width + x0) * 3;
  const o11 = (y1 * width + x1) * 3;
  for (let channel = 0; channel < 3; channel += 1) {
    const top = (data[o00 + channel] ?? 0) * (1 - tx) + (data[o10 + channel] ?? 0) * tx;
    const bottom = (data[o01 + channel] ?? 0) * (1 - tx) + (data[o11 + channel] ?? 0) * tx;
    out[channel] = top * (1 - ty) + bottom * ty;
  }
}

/** Widths of `passes` box filters whose succession approximates a Gaussian of `sigma` (Kovesi, 2010). */
function boxWidths(sigma: number, passes: number): number[] {
  const ideal = sqrt((12 * sigma * sigma) / passes + 1);
  let lower = floor(ideal);
  if (lower % 2 === 0) lower -= 1;
  const upper = lower + 2;
  const lowerCount = round((12 * sigma * sigma - passes * lower * lower - 4 * passes * lower - 3 * passes) / (-4 * lower - 4));
  return Array.from({ length: passes }, (_, index) => (index < lowerCount ? lower : upper));
}

/** One box filter of odd `boxWidth` along every row, with the edges extended. */
function boxRows(source: Float32Array, target: Float32Array, width: number, height: number, boxWidth: number): void {
  const radius = (boxWidth - 1) / 2;
  const scale = 1 / boxWidth;
  // The row with `radius + 1` copies of its end values on each side, so the running sum needs no checks.
  const padded = new Float32Array(width + 2 * radius + 2);
  for (let row = 0; row < height; row += 1) {
    const base = row * width * 3;
    for (let channel = 0; channel < 3; channel += 1) {
      const first = source[base + channel] ?? 0;
      const last = source[base + (width - 1) * 3 + channel] ?? 0;
      for (let index = 0; index <= radius; index += 1) {
        padded[index] = first;
        padded[width + radius + 1 + index] = last;
      }
      for (let x = 0; x < width; x += 1) padded[x + radius + 1] = source[base + x * 3 + channel] ?? 0;
      let sum = 0;
      for (let index = 1; index <= boxWidth; index += 1) sum += padded[index] ?? 0;
      target[base + channel] = sum * scale;
      for (let x = 1; x < width; x += 1) {
        sum += (padded[x + boxWidth] ?? 0) - (padded[x] ?? 0);
        target[base + x * 3 + channel] = sum * scale;
      }
    }
  }
}

/** The same along every column, row by row with one running sum per column (memory stays in order). */
function boxColumns(source: Float32Array, target: Float32Array, width: number, height: number, boxWidth: number): void {
  const radius = (boxWidth - 1) / 2;
  const scale = 1 / boxWidth;
  const rowLength = width * 3;
  const sums = new Float64Array(rowLength);
  const rowAt = (y: number): number => min(height - 1, max(0, y)) * rowLength;
  for (let y = -radius; y <= radius; y += 1) {
    const offset = rowAt(y);
    for (let index = 0; index < rowLength; index += 1) sums[index] = (sums[index] ?? 0) + (source[offset + index] ?? 0);
  }
  for (let y = 0; y < height; y += 1) {
    const out = y * rowLength;
    for (let index = 0; index < rowLength; index += 1) target[out + index] = (sums[index] ?? 0) * scale;
    const entering = rowAt(y + radius + 1);
    const leaving = rowAt(y - radius);
    for (let index = 0; index < rowLength; index += 1)
      sums[index] = (sums[index] ?? 0) + (source[entering + index] ?? 0) - (source[leaving + index] ?? 0);
  }
}

/**
 * Gaussian blur in floating point (three box passes each way): for light that is not yet on the 0-255
 * scale, such as a screen's sub-pixels seen before the camera's exposure, which 8-bit libvips would clip.
 */
export function gaussianBlurFloat(image: RgbImage, sigma: number): RgbImage {
  if (sigma < 0.3) return image;
  let current = Float32Array.from(image.data);
  let spare = new Float32Array(current.length);
  for (const width of boxWidths(sigma, 3)) {
    boxRows(current, spare, image.width, image.height, width);
    [current, spare] = [spare, current];
    boxColumns(current, spare, image.width, image.height, width);
    [current, spare] = [spare, current];
  }
  return { width: image.width, height: image.height, data: current };
}
