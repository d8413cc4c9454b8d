import sharp from 'sharp';
import { stretchLuminance } from './stretch-luminance';

/**
 * A decoded greyscale image kept in memory for the readers: every attempt (rotation, crop, scale) is
 * derived from these pixels by libvips instead of decoding the JPEG again.
 */
export interface GreyRaster {
  data: Buffer;
  width: number;
  height: number;
}

/** A rectangle in fractions of the image (0–1), so a region means the same at any resolution. */
export interface RelativeRegion {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface PixelRegion {
  left: number;
  top: number;
  width: number;
  height: number;
}

export const WHOLE_IMAGE: RelativeRegion = { left: 0, top: 0, width: 1, height: 1 };

export async function decodeGrey(image: Buffer, maxSide?: number): Promise<GreyRaster> {
  let pipeline = sharp(image).greyscale();
  if (maxSide !== undefined)
    pipeline = pipeline.resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true });
  const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/**
 * How far each pixel is from printed black, as one grey image: its brightest channel plus its colour
 * (brightest minus darkest channel). Black and grey print is dark in every channel and stays dark; a
 * coloured overprint (the 2012 DNI's blue seal over its dates, a red MUESTRA stamp across a specimen's
 * names) is bright in one channel or far from grey and comes out light, where in plain luminance it is
 * as dark as the text it crosses.
 */
export async function decodeInkLevel(image: Buffer): Promise<GreyRaster> {
  const { data, info } = await sharp(image).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  const pixels = info.width * info.height;
  const out = Buffer.alloc(pixels);
  for (let pixel = 0, at = 0; pixel < pixels; pixel += 1, at += 3) {
    const r = data[at]!;
    const g = data[at + 1]!;
    const b = data[at + 2]!;
    const high = r > g ? (r > b ? r : b) : g > b ? g : b;
    const low = r < g ? (r < b ? r : b) : g < b ? g : b;
    const level = 2 * high - low;
    out[pixel] = level > 255 ? 255 : level;
  }
  return { data: out, width: info.width, height: info.height };
}

function fromRaster(raster: GreyRaster): sharp.Sharp {
  return sharp(raster.data, { raw: { width: raster.width, height: raster.height, channels: 1 } });
}

/** Clamps a relative region to the image and turns it into whole pixels (at least 1×1). */
export function toPixels(region: RelativeRegion, width: number, height: number): PixelRegion {
  const left = Math.min(width - 1, Math.max(0, Math.round(region.left * width)));
  const top = Math.min(height - 1, Math.max(0, Math.round(region.top * height)));
  const right = Math.min(width, Math.max(left + 1, Math.round((region.left + region.width) * width)));
  const bottom = Math.min(height, Math.max(top + 1, Math.round((region.top + region.height) * height)));
  return { left, top, width: right - left, height: bottom - top };
}

/**
 * Each raster's last turn, kept while the raster lives: the barcode search's last turn is often the MRZ
 * search's first and the printed fields' frame (seed 42: the same 1600 × 1200 photo turned by the same
 * angle two or three times, ~50 ms each). One turn only, so that a search over many angles keeps no more
 * than one turned copy. The rasters are never written to once made, so a turn can be shared.
 */
const lastTurns = new WeakMap<GreyRaster, { degrees: number; turned: Promise<GreyRaster> }>();

/**
 * Rotates a raster clockwise by `degrees` (any angle; the corners are filled with white, the colour of a
 * card's margin, so no black wedge is taken for a bar).
 */
export function rotateRaster(raster: GreyRaster, degrees: number): Promise<GreyRaster> {
  if (degrees % 360 === 0) return Promise.resolve(raster);
  const last = lastTurns.get(raster);
  if (last?.degrees === degrees) return last.turned;
  const turned = (async () => {
    const { data, info } = await fromRaster(raster)
      .rotate(degrees, { background: { r: 255, g: 255, b: 255 } })
      .greyscale()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height };
  })();
  lastTurns.set(raster, { degrees, turned });
  // A turn that failed is not kept: the next call tries again.
  turned.catch(() => {
    if (lastTurns.get(raster)?.turned === turned) lastTurns.delete(raster);
  });
  return turned;
}

export interface VariantOptions {
  region?: RelativeRegion;
  /** Scale factor applied after cropping (1 = as is). */
  scale?: number;
  /**
   * Stretch the histogram to the full range (helps dim or washed-out photos), last, as sharp's
   * `normalise()` would (`stretch-luminance.ts`: the same pixels at a fraction of the cost).
   */
  normalise?: boolean;
  /** Pixels darker than this become black, the rest white (before scaling). */
  threshold?: number;
  /** Turn the result by 180°. */
  upsideDown?: boolean;
  /** Gaussian blur (sigma in output pixels) after scaling: takes sensor noise out of an upscaled crop. */
  blur?: number;
}

function variantPipeline(raster: GreyRaster, options: VariantOptions): sharp.Sharp {
  let region = toPixels(options.region ?? WHOLE_IMAGE, raster.width, raster.height);
  let pipeline = fromRaster(raster);
  if (options.upsideDown) {
    // sharp keeps the call order: turn first, then take the same region from the turned image.
    pipeline = pipeline.rotate(180);
    region = { ...region, left: raster.width - region.left - region.width, top: raster.height - region.top - region.height };
  }
  if (region.width !== raster.width || region.height !== raster.height) pipeline = pipeline.extract(region);
  if (options.threshold !== undefined) pipeline = pipeline.threshold(options.threshold);
  const scale = options.scale ?? 1;
  if (scale !== 1) {
    pipeline = pipeline.resize({
      width: Math.max(1, Math.round(region.width * scale)),
      height: Math.max(1, Math.round(region.height * scale)),
      kernel: scale > 1 ? 'cubic' : 'lanczos3',
    });
  }
  if (options.blur !== undefined && options.blur >= 0.3) pipeline = pipeline.blur(options.blur);
  return pipeline;
}

/** The pipeline a variant's output is encoded from: its pixels, rendered first when they are stretched. */
async function outputPipeline(raster: GreyRaster, options: VariantOptions): Promise<sharp.Sharp> {
  return options.normalise === true ? fromRaster(await greyVariant(raster, options)) : variantPipeline(raster, options);
}

/** A crop/scale of the raster as RGBA pixels (what zxing-wasm takes as ImageData). */
export async function rgbaVariant(
  raster: GreyRaster,
  options: VariantOptions = {},
): Promise<{ data: Uint8ClampedArray; width: number; height: number }> {
  const { data, info } = await (
    await outputPipeline(raster, options)
  )
    .toColourspace('srgb')
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data: new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
}

/** A crop/scale of the raster as a greyscale raster. */
export async function greyVariant(raster: GreyRaster, options: VariantOptions = {}): Promise<GreyRaster> {
  const { data, info } = await variantPipeline(raster, options).greyscale().raw().toBuffer({ resolveWithObject: true });
  // Stretched last, as sharp would after every other step.
  return { data: options.normalise === true ? stretchLuminance(data) : data, width: info.width, height: info.height };
}

/** A crop/scale of the raster as a PNG (what the OCR engine takes). */
export async function pngVariant(raster: GreyRaster, options: VariantOptions = {}): Promise<Buffer> {
  return (await outputPipeline(raster, options)).png({ compressionLevel: 1 }).toBuffer();
}

/** A raster already made (a `greyVariant` looked at before it is read) as the PNG `pngVariant` would give. */
export async function pngOfRaster(raster: GreyRaster): Promise<Buffer> {
  return fromRaster(raster).png({ compressionLevel: 1 }).toBuffer();
}
