/**
 * sharp's `normalise()` for a one-band 8-bit image, bit for bit, without its cost. sharp converts the
 * image to Lab in floats, takes the 1st and 99th percentiles of L* from a histogram, stretches L* between
 * them and converts back (libvips' `percent`, `Lab2XYZ`, `XYZ2scRGB`, `scRGB2BW`): 25–60 ms per call on
 * one libvips thread for the crops the readers make, a third of a side's reading. For a grey image L* is a
 * function of the grey level alone, so the whole round trip is a 256-entry table built from the image's
 * grey histogram: about 1 ms. Identical output checked on every photo of the corpus's seed 7 (100 photos,
 * crops, scales, blur and threshold: 291 million pixels, none different); the unit test
 * compares it with sharp's own on every run.
 *
 * What makes it exact: L* per grey level through sRGB's curve; the percentile as libvips takes it (a
 * histogram of L* truncated to whole numbers, as wide as the largest bin used; its cumulative scaled so
 * its top is the bin count minus one and truncated to integers; the first bin above percent × bin count,
 * or the bin count when none is); and the way back through libvips' rounded sRGB table, interpolated.
 */
const LOWER_PERCENT = 1;
const UPPER_PERCENT = 99;

const SRGB_THRESHOLD = 0.04045;
const LINEAR_THRESHOLD = 0.0031308;
// CIE L* from relative luminance: the cube root above (6/29)³, a line below.
const EPSILON = 216 / 24389;
const KAPPA = 24389 / 27;

function luminanceOfGrey(grey: number): number {
  const value = grey / 255;
  return value <= SRGB_THRESHOLD ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
}

function lightnessOfLuminance(luminance: number): number {
  const f = luminance > EPSILON ? Math.cbrt(luminance) : (KAPPA * luminance + 16) / 116;
  return 116 * f - 16;
}

function luminanceOfLightness(lightness: number): number {
  const f = (lightness + 16) / 116;
  return f > 6 / 29 ? f * f * f : (116 * f - 16) / KAPPA;
}

const LIGHTNESS_OF_GREY = Float64Array.from({ length: 256 }, (_, grey) => lightnessOfLuminance(luminanceOfGrey(grey)));

// libvips' linear → sRGB table (rounded to integers, one extra entry for the interpolation's +1).
const GREY_OF_LINEAR = (() => {
  const table = new Int32Array(257);
  for (let index = 0; index < 256; index++) {
    const linear = Math.fround(index / 255);
    const encoded = linear <= LINEAR_THRESHOLD ? 12.92 * linear : 1.055 * linear ** (1 / 2.4) - 0.055;
    table[index] = Math.round(255 * Math.fround(encoded));
  }
  table[256] = table[255] ?? 255;
  return table;
})();

function greyOfLuminance(luminance: number): number {
  const position = Math.min(255, Math.max(0, Math.fround(luminance * 255)));
  const index = Math.trunc(position);
  const low = GREY_OF_LINEAR[index] ?? 0;
  const high = GREY_OF_LINEAR[index + 1] ?? low;
  return Math.round(low + (high - low) * (position - index));
}

/** libvips' `percent` over a histogram of whole L* values (`bins[i]`: pixels whose L* truncates to i). */
function percentile(bins: Float64Array, total: number, percent: number): number {
  // The scale and the product in single precision, as libvips' `linear` computes them: at the top bin
  // the product can fall just under the bin count minus one and truncate below it.
  const scale = Math.fround((bins.length - 1) / total);
  const threshold = (percent / 100) * bins.length;
  let cumulative = 0;
  for (let index = 0; index < bins.length; index++) {
    cumulative += bins[index] ?? 0;
    if (Math.trunc(Math.fround(Math.fround(cumulative) * scale)) > threshold) return index;
  }
  return bins.length;
}

/** The image with its luminance stretched between its 1st and 99th percentiles, as sharp's `normalise()`. */
export function stretchLuminance(grey: Uint8Array): Buffer {
  const histogram = new Float64Array(256);
  for (let index = 0; index < grey.length; index++) histogram[grey[index]!]! += 1;
  let largest = 0;
  for (let value = 0; value < 256; value++) {
    if ((histogram[value] ?? 0) > 0) largest = Math.max(largest, Math.trunc(LIGHTNESS_OF_GREY[value] ?? 0));
  }
  const bins = new Float64Array(largest + 1);
  for (let value = 0; value < 256; value++) {
    const count = histogram[value] ?? 0;
    if (count > 0) {
      const bin = Math.trunc(LIGHTNESS_OF_GREY[value] ?? 0);
      bins[bin] = (bins[bin] ?? 0) + count;
    }
  }
  const low = percentile(bins, grey.length, LOWER_PERCENT);
  const high = percentile(bins, grey.length, UPPER_PERCENT);
  if (Math.abs(high - low) <= 1) return Buffer.from(grey);
  const factor = 100 / (high - low);
  const table = new Uint8Array(256);
  for (let value = 0; value < 256; value++) {
    table[value] = greyOfLuminance(luminanceOfLightness((LIGHTNESS_OF_GREY[value] ?? 0) * factor - low * factor));
  }
  const stretched = Buffer.allocUnsafe(grey.length);
  for (let index = 0; index < grey.length; index++) stretched[index] = table[grey[index]!]!;
  return stretched;
}
