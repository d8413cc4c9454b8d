import sharp from 'sharp';
import { sniffImageType, type SniffedType } from './sniff';

// Decoded images are never reused across uploads; libvips' operation cache would only hold memory.
sharp.cache(false);

/** An upload made safe to read: upright, no metadata left, at most `maxSide` px, re-encoded as JPEG. */
export interface PreparedImage {
  ok: true;
  jpeg: Buffer;
  width: number;
  height: number;
  /** What the bytes were before re-encoding. */
  source_type: Exclude<SniffedType, 'heic' | 'other'>;
}

export type UploadRefusalReason =
  /** No bytes at all. */
  | 'empty'
  /** More than `maxBytes` (the HTTP layer refuses first; this guards the other callers). */
  | 'too_large'
  /** HEIC/HEIF: recognised, not taken, so the page can say how to send a JPEG instead. */
  | 'heic'
  /** Not a JPEG, PNG or WebP, whatever its name says. */
  | 'unsupported_type'
  /** More pixels than `maxPixels` according to its header: a decompression bomb, refused before decoding. */
  | 'too_many_pixels'
  /** A known type whose data cannot be decoded (truncated, damaged). */
  | 'corrupt';

export interface UploadRefusal {
  ok: false;
  reason: UploadRefusalReason;
  /** For logs and support: what was wrong, without the content. */
  detail: string;
}

export interface UploadLimits {
  maxBytes: number;
  maxPixels: number;
  /** The long side after downscaling. */
  maxSide: number;
  jpegQuality: number;
}

export const DEFAULT_UPLOAD_LIMITS: UploadLimits = {
  maxBytes: 10 * 1024 * 1024,
  // A 40 MP phone photo is the largest genuine capture; a bomb claims far more (a 20000×20000 PNG is 400 MP).
  maxPixels: 40_000_000,
  // Enough for a card's PDF417 (about 2 px per module when the card fills the frame) and the MRZ.
  maxSide: 2000,
  jpegQuality: 90,
};

function refuse(reason: UploadRefusalReason, detail: string): UploadRefusal {
  return { ok: false, reason, detail };
}

export function isUploadRefusal(value: PreparedImage | UploadRefusal): value is UploadRefusal {
  return !value.ok;
}

/**
 * Turns uploaded bytes into a `PreparedImage`, or a typed refusal. The type is sniffed from the bytes;
 * the pixel count is read from the header before anything is decoded (and enforced again by libvips'
 * `limitInputPixels` while decoding); EXIF orientation is applied, then every piece of metadata (EXIF,
 * GPS, ICC, XMP) is dropped by re-encoding. Never throws for bad input.
 */
export async function prepareUpload(bytes: Buffer, limits: Partial<UploadLimits> = {}): Promise<PreparedImage | UploadRefusal> {
  const { maxBytes, maxPixels, maxSide, jpegQuality } = { ...DEFAULT_UPLOAD_LIMITS, ...limits };
  if (bytes.length === 0) return refuse('empty', 'the file is empty');
  if (bytes.length > maxBytes) return refuse('too_large', `${bytes.length} bytes; at most ${maxBytes}`);

  const type = sniffImageType(bytes);
  if (type === 'heic') return refuse('heic', 'HEIC/HEIF image');
  if (type === 'other') return refuse('unsupported_type', 'not a JPEG, PNG or WebP image');

  let width: number;
  let height: number;
  try {
    const metadata = await sharp(bytes, { limitInputPixels: false }).metadata();
    width = metadata.width;
    height = metadata.height;
  } catch (error) {
    return refuse('corrupt', `unreadable ${type} header: ${(error as Error).message}`);
  }
  if (!(width > 0 && height > 0)) return refuse('corrupt', `${type} header without dimensions`);
  if (width * height > maxPixels) {
    return refuse('too_many_pixels', `${width}×${height} is ${width * height} pixels; at most ${maxPixels}`);
  }

  const reencode = (failOn: 'warning' | 'truncated') =>
    sharp(bytes, { limitInputPixels: maxPixels, failOn, pages: 1 })
      .rotate()
      .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .jpeg({ quality: jpegQuality, mozjpeg: false })
      .toBuffer({ resolveWithObject: true });
  try {
    let encoded;
    try {
      encoded = await reencode('warning');
    } catch (error) {
      // A JPEG whose scan ends before the frame its header declares is filled with grey by libjpeg, with
      // only a warning: a 6000 × 6600 header over a few kilobytes would be read as a photo. Other
      // warnings (stray bytes between markers, which some phones write) leave a whole image: decoded
      // again, tolerating them.
      if (INCOMPLETE_SCAN.test((error as Error).message)) throw error;
      encoded = await reencode('truncated');
    }
    const { data, info } = encoded;
    return { ok: true, jpeg: data, width: info.width, height: info.height, source_type: type };
  } catch (error) {
    return refuse('corrupt', `cannot decode the ${type} data: ${(error as Error).message}`);
  }
}

/** libjpeg's warning for entropy-coded data that ran out before the image did. */
const INCOMPLETE_SCAN = /premature end of data segment/i;
