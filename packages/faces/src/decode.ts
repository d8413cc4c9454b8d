import sharp from 'sharp';
import { sniffImageType } from '@idv/verification';
import { FaceError } from './errors';
import { IMAGE_LIMITS, type ImageLimits } from './limits';

// Frames are never decoded twice; libvips' operation cache would only hold memory.
sharp.cache(false);

/** 8-bit RGB, upright (EXIF orientation applied), at most `IMAGE_LIMITS.maxSide` on the long side. */
export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
  channels: 3;
  /** The size before downscaling. */
  sourceWidth: number;
  sourceHeight: number;
  sourceType: 'jpeg' | 'png' | 'webp';
}

/** Decodes a JPEG, PNG or WebP; every refusal is a `FaceError` with an input code. */
export async function decodeImage(bytes: Buffer, limits: ImageLimits = IMAGE_LIMITS): Promise<RgbImage> {
  if (bytes.length === 0) throw new FaceError('image_empty', 'no bytes');
  if (bytes.length > limits.maxBytes) throw new FaceError('image_too_large', `${bytes.length} bytes, at most ${limits.maxBytes}`);
  const type = sniffImageType(bytes);
  if (type === 'heic' || type === 'other')
    throw new FaceError('image_unsupported', type === 'heic' ? 'HEIC/HEIF' : 'not a JPEG, PNG or WebP');
  let width: number;
  let height: number;
  let orientation: number | undefined;
  try {
    const meta = await sharp(bytes).metadata();
    width = meta.width ?? 0;
    height = meta.height ?? 0;
    orientation = meta.orientation;
  } catch (error) {
    throw new FaceError('image_corrupt', `header unreadable: ${(error as Error).message}`);
  }
  if (width * height > limits.maxPixels)
    throw new FaceError('image_too_many_pixels', `${width}×${height}, at most ${limits.maxPixels} pixels`);
  // EXIF orientations 5–8 swap the sides once the image is upright.
  const [uprightWidth, uprightHeight] = orientation !== undefined && orientation >= 5 ? [height, width] : [width, height];
  if (Math.min(uprightWidth, uprightHeight) < limits.minSide)
    throw new FaceError('image_too_small', `${uprightWidth}×${uprightHeight}, at least ${limits.minSide} px a side`);
  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: limits.maxPixels, failOn: 'error' })
      .rotate()
      .resize({ width: limits.maxSide, height: limits.maxSide, fit: 'inside', withoutEnlargement: true })
      .toColourspace('srgb')
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3) throw new Error(`expected RGB, got ${info.channels} channels`);
    return {
      data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
      width: info.width,
      height: info.height,
      channels: 3,
      sourceWidth: uprightWidth,
      sourceHeight: uprightHeight,
      sourceType: type,
    };
  } catch (error) {
    throw new FaceError('image_corrupt', (error as Error).message);
  }
}
