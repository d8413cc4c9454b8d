import sharp from 'sharp';
import { QUALITY_MAX_SIDE } from '../calibration/quality';
import { overwrittenFloat32 } from './scratch';

export interface RawImage {
  data: Uint8Array;
  width: number;
  height: number;
  channels: 1 | 2 | 3 | 4;
}

/**
 * The pixels the quality measures work on: 8-bit RGB at most `QUALITY_MAX_SIDE` px on the long side (the
 * scale the recapture features were calibrated at), plus its luma.
 */
export interface RgbPixels {
  rgb: Uint8Array;
  luma: Float32Array;
  /** Each pixel's chroma along each axis (`ChromaAxis`), in the same order as `luma`. */
  chroma: Record<ChromaAxis, Float32Array>;
  width: number;
  height: number;
}

/** A rectangle in fractions of the image (0–1), like the readers' `RelativeRegion`. */
export interface Region {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface PixelBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

function isRaw(image: Buffer | RawImage): image is RawImage {
  return !Buffer.isBuffer(image);
}

export async function loadPixels(image: Buffer | RawImage): Promise<RgbPixels> {
  const { rgb, width, height } = await decodeRgb(image);
  return pixelsFromRgb(rgb, width, height);
}

/** The image as 8-bit RGB at most `QUALITY_MAX_SIDE` px on the long side (raw RGB that fits is taken as it is). */
export async function decodeRgb(
  image: Buffer | RawImage,
): Promise<{ rgb: Uint8Array; width: number; height: number; decoded: boolean }> {
  let pipeline: sharp.Sharp;
  if (isRaw(image)) {
    const { width, height, channels } = image;
    if (channels === 3 && Math.max(width, height) <= QUALITY_MAX_SIDE) return { rgb: image.data, width, height, decoded: false };
    pipeline = sharp(image.data, { raw: { width, height, channels } });
  } else {
    pipeline = sharp(image);
  }
  const { data, info } = await pipeline
    .resize({ width: QUALITY_MAX_SIDE, height: QUALITY_MAX_SIDE, fit: 'inside', withoutEnlargement: true })
    .toColourspace('srgb')
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`expected RGB pixels, got ${info.channels} channels`);
  return { rgb: data, width: info.width, height: info.height, decoded: true };
}

/**
 * The luma and both chroma planes, computed once: the spectra's tiles and the colour statistics read
 * them many times over (a chroma computed per read from the RGB bytes took three times as long). Every
 * value is an integer or a half integer, exact in a Float32Array.
 */
export function pixelsFromRgb(rgb: Uint8Array, width: number, height: number): RgbPixels {
  const size = width * height;
  return planesInto(rgb, width, height, new Float32Array(size), new Float32Array(size), new Float32Array(size));
}

/**
 * `pixelsFromRgb` into this thread's kept planes where the quality helper turned their reuse on
 * (scratch.ts): the result is valid only until the next call, so it must be used up before any `await`.
 */
export function pixelsFromRgbReused(rgb: Uint8Array, width: number, height: number): RgbPixels {
  const size = width * height;
  return planesInto(
    rgb,
    width,
    height,
    overwrittenFloat32('luma', size),
    overwrittenFloat32('blue_red', size),
    overwrittenFloat32('green_magenta', size),
  );
}

/** Writes every element of the three planes (each `width × height` long): reused planes need no clearing. */
function planesInto(
  rgb: Uint8Array,
  width: number,
  height: number,
  luma: Float32Array,
  blueRed: Float32Array,
  greenMagenta: Float32Array,
): RgbPixels {
  for (let index = 0, offset = 0; index < luma.length; index += 1, offset += 3) {
    const r = rgb[offset] ?? 0;
    const g = rgb[offset + 1] ?? 0;
    const b = rgb[offset + 2] ?? 0;
    luma[index] = 0.299 * r + 0.587 * g + 0.114 * b;
    blueRed[index] = b - r;
    // × 0.5 rather than / 2: the same exact halving, without a division per pixel.
    greenMagenta[index] = g - (r + b) * 0.5;
  }
  return { rgb, luma, chroma: { blue_red: blueRed, green_magenta: greenMagenta }, width, height };
}

/**
 * The two chroma axes a recapture colours: blue–red (B − R), where a display's outer sub-pixel stripes and
 * cyan and yellow dots show, and green–magenta (G − (R + B) / 2), where its middle stripe and magenta dots
 * show (magenta ink takes green away and leaves B − R nearly as it was). `pixelsFromRgb` computes both.
 */
export type ChromaAxis = 'blue_red' | 'green_magenta';

/** The pixel box of a region (the whole image when none is given), at least 8×8 px. */
export function boxOf(region: Region | undefined, width: number, height: number): PixelBox {
  if (region === undefined) return { x0: 0, y0: 0, x1: width, y1: height };
  const x0 = Math.min(width - 8, Math.max(0, Math.round(region.left * width)));
  const y0 = Math.min(height - 8, Math.max(0, Math.round(region.top * height)));
  const x1 = Math.max(x0 + 8, Math.min(width, Math.round((region.left + region.width) * width)));
  const y1 = Math.max(y0 + 8, Math.min(height, Math.round((region.top + region.height) * height)));
  return { x0: Math.max(0, x0), y0: Math.max(0, y0), x1, y1 };
}
