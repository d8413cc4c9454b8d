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
export const PLAIN: OcrVariant = { name: 'plain', width: 1200 };
export const BINARISED: OcrVariant = { name: 'binarised', width: 1200, threshold: 110 };
export const WIDE: OcrVariant = { name: 'wide', width: 1600 };
// A glare over the zone lifts the ink it covers to a grey of 150–200 while the paper around stays white
// (s99-000006: `1000000` and `59F` under a reflection read as `1P JO` and a gap by every other variant);
// pixels darker than 200 become ink, which gives them back their strokes.
export const BINARISED_LIGHT: OcrVariant = { name: 'binarised_light', width: 1200, threshold: 200 };
export const RECTIFIED: OcrVariant = { name: 'rectified', width: 1200 };
// Last, on a zone blurred beyond a sharp photo's edge width (`MIN_DEBLUR_SIGMA`): the blur undone in
// both directions (a Gaussian is separable), at the estimated σ and at a stronger one; each checks the
// other's names, so a check is another deblurring, not the same pixels resampled. Measured on seed 42's
// blurred passport (σ 3.0 px): plain `P<OIA6ARCIA`, every check digit but two failing; deblurred at
// σ 3.1 and noise ratio 0.01, and at σ 3.6 and 0.03, valid and exact; at σ 3.0, one digit off.
export const DEBLURRED: OcrVariant = { name: 'deblurred', width: 1200, deblur: { sigmaFactor: 1, noise: 0.01 } };
export const DEBLURRED_STRONGER: OcrVariant = {
  name: 'deblurred_stronger',
  width: 1200,
  deblur: { sigmaFactor: 1.2, noise: 0.03 },
};
// On a photo that looks recaptured (`MrzSearchOptions.recaptured`), last: the crop's periodic patterns
// notched out of its spectrum (`descreen.ts`). A screen's grid crosses the characters with dark lines the
// engine reads as strokes (s42-000048: `CAMILA` read `CM4ILA`); notched out, the zone reads. Where the
// plain crop showed no MRZ or ran into the safety cap, it is read at two widths right after it instead.
export const DESCREENED: OcrVariant = { name: 'descreened', width: 1200, descreen: true };
export const DESCREENED_WIDE: OcrVariant = { name: 'descreened_wide', width: 1600, descreen: true };
// Right after the plain and the straightened crop: the zone's cells matched against OCR-B's glyphs
// blurred as the zone is (`mrz-glyphs.ts`), at a width of its own (`GLYPH_CELL_PX`). A blurred passport
// zone (σ 3–4 px) that the engine reads `P<OIA6ARCIA` or cut short at both ends reads exactly this way;
// it comes before the other crops because those, and the deblurred ones, ran the search's budget out
// before a later variant was reached (s99-000064, s99-000134). Its names are checked as every other
// variant's: by the plain crop's, and by the LSTM engine shown the zone deblurred (`glyphRead`).
export const GLYPHS: OcrVariant = { name: 'glyphs', width: 0, glyphs: true };
// Sharp photos' text edges measure 0.8–1.1 px at the OCR width (as the barcodes' do, `deconvolve.ts`).
export const MIN_DEBLUR_SIGMA = 1.4;

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
 * A zone whose crop, stretched at the OCR's width, is this noisy (`noiseSigma`) is read smoothed: a dim
 * photo's sensor noise, multiplied by the stretch, is read by the legacy engine as a field of small
 * characters, slowly (6 s, and the 10 s safety cap, over one such zone) and wrongly. Ordinary photos and
 * prints measure 1–5, dim ones 5–25 (corpus seeds 6001 and 6002); from 10, over 32 zones of the two,
 * the crops as they are read 16 exactly and smoothed 25 (docs/documents.md "Reading images").
 */
export const NOISY_ZONE_SIGMA = 10;

// The safety cap of the passes read only to find the names the second engine reads (`readWholeZone`):
// an ordinary zone pass takes 0.1–0.4 s; on a machine loaded beyond its cores one cut short leaves the
// names withheld, as they were before the pass.
export const ARBITRATION_OCR_TIMEOUT_MS = 3_000;

/**
 * The smoothing of a noisy zone: Gaussian σ in px at the 1200 px OCR width (scaled with a variant's
 * width), by the lines the locator counted. The characters of a two-line zone (TD3's 44 a line, TD2's
 * 36) stand 0.68–0.83 as wide at that width as a TD1's 30: smoothed as much, a passport's M became H
 * and its 5 an S (s99-000037, s99-000047). Measured per σ on corpus seed 6002's dim zones from 10:
 * TD1 (10 zones) 7 exact as they are, 8 at 0.75, 9 at 1–1.5; TD3 (11) 5 as they are, 8 at 0.75, 7 at 1,
 * 5 at 1.5.
 */
export function denoiseSigma(zoneLines: number): number {
  return zoneLines >= 3 ? 1.5 : 0.75;
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

/**
 * MRZ lines converging by at least this much (`MrzBandGeometry.convergence_deg`) are a keystone that a
 * rectangular crop does not hold: s42-000023's lines converge by 0.82°, the plain and the wide crop cut
 * the bottom of its names line alike and both read `RHT7<<70F` for `RUIZ<<ZOE` (Z as 7, E as F: the
 * bottom strokes gone), which then counted as names read twice the same. Over seed 42's other 48 MRZ
 * sides the lines converge by 0.02–0.67° (perspective photos 0.21–0.49°); at 0.5° three of them (a
 * print, a screen and the keystoned back) get the straightened check (docs/documents.md).
 */
export const KEYSTONE_CHECK_DEG = 0.5;
