import {
  MRZ_BINARISED_LIGHT_THRESHOLD,
  MRZ_BINARISED_THRESHOLD,
  MRZ_DEBLUR,
  MRZ_DEBLUR_STRONGER,
  MRZ_OCR_WIDTH,
  MRZ_WIDE_OCR_WIDTH,
  NOISY_ZONE_SMOOTHING,
} from '../../calibration/mrz';
/**
 * The crops of a zone that are read (`OcrVariant`), in the order they are read, and which of them checks
 * another's names.
 */
export interface OcrVariant {
  name:
    | 'plain'
    | 'binarised'
    | 'binarised_light'
    | 'wide'
    | 'rectified'
    | 'deblurred'
    | 'deblurred_stronger'
    | 'descreened'
    | 'descreened_wide'
    | 'glyphs';
  /** Width of the zone's crop for OCR: OCR-B characters then stand 20–40 px tall. */
  width: number;
  threshold?: number;
  /** The crop's defocus undone (`deconvolve.ts`): σ as estimated times this factor, and the noise ratio. */
  deblur?: { sigmaFactor: number; noise: number };
  /** The crop's screen grid or halftone notched out (`descreen.ts`). */
  descreen?: true;
  /** Read by matching OCR-B's glyphs in the straightened zone (`mrz-glyphs.ts`), not by the OCR engine. */
  glyphs?: true;
}

// The first reads the zone as it is; the others only when it was not read with every check digit holding
// and its names corroborated.
export const PLAIN: OcrVariant = { name: 'plain', width: MRZ_OCR_WIDTH };
export const BINARISED: OcrVariant = { name: 'binarised', width: MRZ_OCR_WIDTH, threshold: MRZ_BINARISED_THRESHOLD };
export const WIDE: OcrVariant = { name: 'wide', width: MRZ_WIDE_OCR_WIDTH };
// A glare over the zone lifts the ink it covers to a grey (`MRZ_BINARISED_LIGHT_THRESHOLD`).
export const BINARISED_LIGHT: OcrVariant = {
  name: 'binarised_light',
  width: MRZ_OCR_WIDTH,
  threshold: MRZ_BINARISED_LIGHT_THRESHOLD,
};
export const RECTIFIED: OcrVariant = { name: 'rectified', width: MRZ_OCR_WIDTH };
// Last, on a zone blurred beyond a sharp photo's edge width (`MRZ_MIN_DEBLUR_SIGMA`): the blur undone in
// both directions (a Gaussian is separable), at the estimated σ and at a stronger one (`MRZ_DEBLUR`,
// `MRZ_DEBLUR_STRONGER`); each checks the other's names, so a check is another deblurring, not the same
// pixels resampled.
export const DEBLURRED: OcrVariant = { name: 'deblurred', width: MRZ_OCR_WIDTH, deblur: MRZ_DEBLUR };
export const DEBLURRED_STRONGER: OcrVariant = { name: 'deblurred_stronger', width: MRZ_OCR_WIDTH, deblur: MRZ_DEBLUR_STRONGER };
// On a photo that looks recaptured (`MrzSearchOptions.recaptured`), last: the crop's periodic patterns
// notched out of its spectrum (`descreen.ts`). A screen's grid crosses the characters with dark lines the
// engine reads as strokes (s42-000048: `CAMILA` read `CM4ILA`); notched out, the zone reads. Where the
// plain crop showed no MRZ or ran into the safety cap, it is read at two widths right after it instead.
export const DESCREENED: OcrVariant = { name: 'descreened', width: MRZ_OCR_WIDTH, descreen: true };
export const DESCREENED_WIDE: OcrVariant = { name: 'descreened_wide', width: MRZ_WIDE_OCR_WIDTH, descreen: true };
// Right after the plain and the straightened crop: the zone's cells matched against OCR-B's glyphs
// blurred as the zone is (`mrz-glyphs.ts`), at a width of its own (`GLYPH_CELL_PX`). A blurred passport
// zone (σ 3–4 px) that the engine reads `P<OIA6ARCIA` or cut short at both ends reads exactly this way;
// it comes before the other crops because those, and the deblurred ones, ran the search's budget out
// before a later variant was reached (s99-000064, s99-000134). Its names are checked as every other
// variant's: by the plain crop's, and by the LSTM engine shown the zone deblurred (`glyphRead`).
export const GLYPHS: OcrVariant = { name: 'glyphs', width: 0, glyphs: true };

/**
 * A zone's variants in the order they are read. The plain crop first, then the zone straightened
 * (`rectify.ts`): under a keystone the plain crop cuts a line's far end off and shows the names slanted
 * and shrinking (misread, and no check digit covers them); the rectified read then gives the lines. It
 * comes second, not first: read first, its resampling made a blurred M into H on passports where the
 * plain crop read it right, and two variants agreeing on such names gives them back wrong (seed 7, two
 * false accepts).
 */
export function zoneVariants(rectified: boolean, recaptured: boolean): OcrVariant[] {
  return [
    PLAIN,
    ...(rectified ? [RECTIFIED] : []),
    GLYPHS,
    BINARISED,
    WIDE,
    BINARISED_LIGHT,
    DEBLURRED,
    DEBLURRED_STRONGER,
    // Only where the photo looks recaptured: descreening also takes some of a line's own periodicity,
    // and on an ordinary zone its read was a rival to the others' names that only the second engine
    // could settle (a passport sample with a wrong check digit lost its names on a loaded machine).
    ...(recaptured ? [DESCREENED] : []),
  ];
}

/**
 * The smoothing of a noisy zone: Gaussian σ in px at the 1200 px OCR width (scaled with a variant's
 * width), by the lines the locator counted (`NOISY_ZONE_SMOOTHING`: a two-line zone's characters are
 * narrower, and smoothed as much as a TD1's they were misread).
 */
export function denoiseSigma(zoneLines: number): number {
  return zoneLines >= 3 ? NOISY_ZONE_SMOOTHING.threeLines : NOISY_ZONE_SMOOTHING.twoLines;
}

/**
 * The variant that checks a valid read's names: 'wide' checks the plain crop, 'plain' every other. A
 * rectified read is never checked by another resampling of the rectified band: the two misread a blurred
 * M as H alike. The binarised variant is the noisiest reader of letters, so it only ever is checked.
 */
export function checkOf(variant: OcrVariant['name'], keystoned: boolean, descreenedOnly: boolean): OcrVariant {
  // Under a keystone the plain and the wide crop are one rectangle at two widths: both cut the same
  // line's far end and misread it alike, so only the straightened zone can check them.
  if (keystoned && (variant === 'plain' || variant === 'wide')) return RECTIFIED;
  if (variant === 'deblurred') return DEBLURRED_STRONGER;
  if (variant === 'deblurred_stronger') return DEBLURRED;
  // Where the zone is read descreened only (`MrzSearchOptions.recaptured`), the plain crop showed nothing
  // or ran into the safety cap: the other width checks. Elsewhere the plain crop does, as for the others.
  if (descreenedOnly && variant === 'descreened') return DESCREENED_WIDE;
  if (descreenedOnly && variant === 'descreened_wide') return DESCREENED;
  return variant === 'plain' ? WIDE : PLAIN;
}
