import sharp from 'sharp';

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
