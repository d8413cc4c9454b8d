import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { stretchLuminance } from '../src/image/stretch-luminance';
import { decodeGrey, greyVariant, pngVariant, type GreyRaster, type VariantOptions } from '../src/image/raster';
import { REFERENCE_DOCUMENTS_DIR } from './reference-data';

/**
 * The readers' contrast stretch replaces sharp's `normalise()` for speed; every reading and threshold was
 * measured with sharp's, so it must give the same pixels, not similar ones.
 */
const PHOTOS = [
  'images/dni/ar_dni_2009_specimen_villareal.jpg',
  'images/dni/ar_dni_2012_specimen_front_villareal.jpg',
  'images/mrz/passporteye_passport-td3.jpg',
];

const VARIANTS: Record<string, VariantOptions> = {
  'whole, scaled down': { scale: 0.6 },
  'bottom band, upscaled': { region: { left: 0, top: 0.65, width: 1, height: 0.3 }, scale: 1.7 },
  'binarised band': { region: { left: 0, top: 0.6, width: 1, height: 0.35 }, scale: 0.9, threshold: 110 },
  'blurred analysis copy': { scale: 0.5, blur: 1 },
  'upside down crop': { region: { left: 0.1, top: 0.1, width: 0.6, height: 0.4 }, upsideDown: true },
};

/** What sharp's own `normalise()` gives for the same variant (sharp stretches after every other step). */
async function sharpNormalised(raster: GreyRaster, options: VariantOptions): Promise<Buffer> {
  const stretched = await greyVariant(raster, options);
  const plain = await greyVariant(raster, { ...options, normalise: false });
  expect(stretched.width).toBe(plain.width);
  return sharp(plain.data, { raw: { width: plain.width, height: plain.height, channels: 1 } })
    .normalise()
    .greyscale()
    .raw()
    .toBuffer();
}

/** A dim photo: every grey level under 60, with sensor noise. */
function dimRaster(): GreyRaster {
  const width = 320;
  const height = 200;
  const data = Buffer.alloc(width * height);
  let seed = 11;
  for (let index = 0; index < data.length; index += 1) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const ink = (index % width) % 40 < 6 ? 8 : 45;
    data[index] = ink + (seed % 9);
  }
  return { data, width, height };
}

describe('stretchLuminance (sharp normalise, bit for bit)', () => {
  it.each(PHOTOS)('gives the pixels sharp gives on %s, for every kind of variant the readers make', async (photo) => {
    const raster = await decodeGrey(fs.readFileSync(path.join(REFERENCE_DOCUMENTS_DIR, photo)));
    for (const [name, options] of Object.entries(VARIANTS)) {
      const ours = await greyVariant(raster, { ...options, normalise: true });
      const theirs = await sharpNormalised(raster, options);
      expect({ name, same: ours.data.equals(theirs) }).toEqual({ name, same: true });
    }
  });

  it('stretches a dim photo as sharp does, and the PNG for the OCR carries the same pixels', async () => {
    const raster = dimRaster();
    const theirs = await sharp(raster.data, { raw: { width: raster.width, height: raster.height, channels: 1 } })
      .normalise()
      .greyscale()
      .raw()
      .toBuffer();
    const ours = stretchLuminance(raster.data);
    expect(ours.equals(theirs)).toBe(true);
    // The dim range is spread out: ink black, paper light.
    expect(Math.min(...ours)).toBeLessThan(10);
    expect(Math.max(...ours)).toBeGreaterThan(200);
    const png = await pngVariant(raster, { normalise: true });
    const decoded = await sharp(png).greyscale().raw().toBuffer();
    expect(decoded.equals(theirs)).toBe(true);
  });

  it('leaves an image of one grey level as it is, as sharp does', async () => {
    const flat = Buffer.alloc(64 * 64, 128);
    const theirs = await sharp(flat, { raw: { width: 64, height: 64, channels: 1 } })
      .normalise()
      .greyscale()
      .raw()
      .toBuffer();
    expect(stretchLuminance(flat).equals(theirs)).toBe(true);
    expect(stretchLuminance(flat).equals(flat)).toBe(true);
  });
});
