import sharp from 'sharp';
import { SIGNATURE_HEIGHT, SIGNATURE_WIDTH } from '../calibration/angled-front';

/**
 * A 64-bit difference hash (dHash): the image shrunk to 9×8 grey pixels, one bit per horizontal
 * neighbour pair (left brighter than right). Photos of the same card stay within a few bits of each
 * other under re-encoding and light changes; a photo taken at an angle moves more bits. Measured on
 * labelled pairs (docs/documents.md "The angled front") the distance does not tell one card from another
 * of the same layout, so it is reported, never judged.
 */
export async function perceptualHash(image: Buffer): Promise<string> {
  const pixels = await sharp(image).greyscale().resize(9, 8, { fit: 'fill' }).raw().toBuffer();
  let bits = 0n;
  for (let row = 0; row < 8; row += 1) {
    for (let column = 0; column < 8; column += 1) {
      const left = pixels[row * 9 + column] ?? 0;
      const right = pixels[row * 9 + column + 1] ?? 0;
      bits = (bits << 1n) | (left > right ? 1n : 0n);
    }
  }
  return bits.toString(16).padStart(16, '0');
}

/** Differing bits between two hashes (0–64). */
export function hashDistance(a: string, b: string): number {
  let difference = BigInt(`0x${a}`) ^ BigInt(`0x${b}`);
  let count = 0;
  while (difference > 0n) {
    count += Number(difference & 1n);
    difference >>= 1n;
  }
  return count;
}

/**
 * The photo's likeness signature: a 64 × 48 grey thumbnail of the whole photo (squeezed to that shape,
 * as the hash is), base64. Finer than the hash: a re-encoded, rescaled or brightened copy of a photo
 * stays within a hundredth of it (`signatureDistance`), where a 64-bit hash moved up to 10 bits, as far
 * as a second photo of the card at an angle (docs/documents.md "The angled front").
 */
export async function perceptualSignature(image: Buffer): Promise<string> {
  const pixels = await sharp(image)
    .greyscale()
    // Shrink-on-load gives a JPEG and the same pixels in a PNG different thumbnails.
    .resize(SIGNATURE_WIDTH, SIGNATURE_HEIGHT, { fit: 'fill', fastShrinkOnLoad: false })
    .raw()
    .toBuffer();
  return pixels.toString('base64');
}

/**
 * How unlike two signatures are: 1 minus the correlation of their pixels (0 the same picture at any
 * brightness and contrast, 1 unrelated, up to 2 inverted). Signatures of another size are unlike (1).
 */
export function signatureDistance(a: string, b: string): number {
  const x = Buffer.from(a, 'base64');
  const y = Buffer.from(b, 'base64');
  if (x.length !== y.length || x.length === 0) return 1;
  const n = x.length;
  let sx = 0;
  let sy = 0;
  for (let i = 0; i < n; i += 1) {
    sx += x[i]!;
    sy += y[i]!;
  }
  const mx = sx / n;
  const my = sy / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i += 1) {
    const dx = x[i]! - mx;
    const dy = y[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  // A flat picture (a blank frame) correlates with nothing, itself included.
  if (sxx === 0 || syy === 0) return 1;
  return 1 - sxy / Math.sqrt(sxx * syy);
}
