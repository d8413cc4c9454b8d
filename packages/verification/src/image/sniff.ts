/**
 * The image type told by the bytes themselves (magic numbers), never by a file name or a declared
 * content type. HEIC/HEIF (what iPhones save by default) is recognised so the person can be told how to
 * send a JPEG instead; AVIF and everything else is simply not an image we take.
 */
export type SniffedType = 'jpeg' | 'png' | 'webp' | 'heic' | 'other';

// ISO-BMFF major/compatible brands of HEIF stills and sequences (ISO/IEC 23008-12); AVIF's 'avif'/'avis'
// are deliberately absent.
const HEIF_BRANDS = new Set(['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis', 'hevm', 'hevs', 'mif1', 'msf1']);

function startsWith(bytes: Buffer, signature: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + signature.length) return false;
  return signature.every((byte, index) => bytes[offset + index] === byte);
}

function isHeif(bytes: Buffer): boolean {
  // box size (4) + 'ftyp' + major brand (4) + minor version (4) + compatible brands (4 each).
  if (bytes.length < 16 || bytes.toString('latin1', 4, 8) !== 'ftyp') return false;
  const boxSize = bytes.readUInt32BE(0);
  const end = Math.min(bytes.length, boxSize >= 16 ? boxSize : 16);
  const brands = [bytes.toString('latin1', 8, 12)];
  for (let offset = 16; offset + 4 <= end; offset += 4) brands.push(bytes.toString('latin1', offset, offset + 4));
  if (brands.some((brand) => brand === 'avif' || brand === 'avis')) return false;
  return brands.some((brand) => HEIF_BRANDS.has(brand));
}

export function sniffImageType(bytes: Buffer): SniffedType {
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  if (isHeif(bytes)) return 'heic';
  return 'other';
}
