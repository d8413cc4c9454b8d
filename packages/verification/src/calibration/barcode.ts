/**
 * The PDF417 search (`readers/barcode-locator.ts`, `readers/barcode.reader.ts`): where a symbol is looked
 * for, at what scale and tilt it is shown to zxing, and how a blurred one is deblurred. Re-measured by
 * `node bench/documents/run.mjs --seed 42` (barcode read rate per degradation).
 */

/**
 * The locator (`locateBarcodes`), 2026-11-23 (commit 60a6cd2, issue 10; bench/documents/README.md
 * "Measured 2026-11-23, counted budgets and the barcode locator": seed 42's barcodes 67.5% → 85.0% read,
 * low-light 1/4 → 4/4, prints 1/4 → 4/4, no false accept). Only the locator as a whole was measured: no figure
 * is recorded for the values one by one.
 *
 * Cells per long side of the image: a cell then holds a few of a DNI's PDF417 modules.
 */
export const CELLS_PER_SIDE = 100;
/**
 * A cell of bars has most of its gradient along one direction. A candidate starts at such a cell and
 * grows into strong cells of lower coherence too: the row boundaries of a sharp symbol add gradients
 * across the bars (0.2–0.4 there), and its direction is then taken from the coherent cells alone.
 */
export const MIN_COHERENCE = 0.4;
export const MIN_GROWTH_COHERENCE = 0.2;
/** Strong: against the strongest cells of the photo (a symbol is the photo's densest pattern). */
export const ENERGY_SHARE = 0.2;
/** Cells whose directions differ by more than this (degrees) do not join one candidate. */
export const MAX_DIRECTION_SPREAD = 20;
/** Candidates smaller than this many cells are marks, not symbols (a DNI 2012 front's PDF417 is 60–120). */
export const MIN_CELLS = 12;
/**
 * A symbol is a filled patch: its bounding box (in the candidate's own frame) is at least this many
 * cells across both ways and at least this share filled. Lines of text, card edges and the MRZ's lines
 * are one or two cells tall.
 */
export const MIN_THICKNESS_CELLS = 3;
export const MIN_FILL = 0.45;

/**
 * A located symbol's crop is scaled so that it is about this wide (at most `MAX_LOCATED_SCALE` times):
 * measured on the corpus's dim photos (2026-11-23, commit 60a6cd2), a DNI's PDF417 (4–5 px modules at this
 * width) reads there and not at two thirds of it. No count recorded.
 */
export const LOCATED_WIDTH_PX = 1500;
export const MAX_LOCATED_SCALE = 4;

/**
 * A crop whose long side is below this is upscaled (×2) so PDF417 modules stay at least ~2 px wide.
 * 2026-11-23 (commit 0455c31), no figure recorded.
 */
export const UPSCALE_BELOW_PX = 800;

/**
 * Tilts tried after the photo as taken and its suggested skew, smallest first (degrees): the corpus's
 * `tilt` profile turns a card by up to 25°. 2026-11-23 (commit 0455c31), no figure recorded for the
 * rungs; the ladder is skipped on identified pages since 2026-11-25 (commit 270b3d7).
 */
export const TILT_LADDER: readonly number[] = [4, -4, 8, -8, 12, -12, 16, -16, 20, -20, 25, -25];

/**
 * Below this estimated blur (px) a located crop is as sharp as the corpus's clean photos get (0.8–1.1 px:
 * the sensor's and the resampling's own edge width): deconvolving it only adds ringing. 2026-11-25
 * (commit 270b3d7, the last-resort Wiener deblur of blurred PDF417s).
 */
export const BARCODE_MIN_DEBLUR_SIGMA = 1.4;

/**
 * Blurs tried in turn around the estimate (px added to it), as long as the budget lasts: the estimate of
 * a blurred symbol's σ is within a few tenths of the truth, and the filter reads over a band of about
 * ±0.3 px around it (seed 42's blurred fronts read at 2.2–2.6 px for an estimate of 2.06, at 2.0 for
 * 1.88; a back at 1.5–3.0 for 2.27). 2026-11-25 (commit 270b3d7).
 */
export const DEBLUR_OFFSETS: readonly number[] = [0.3, 0, 0.6];

/**
 * The noise-to-signal ratio of the Wiener filter: at 0.01 and above the finest modules stay merged, at
 * 0.0003 the JPEG's blocks ring into bars (measured on the same crops, 2026-11-25, commit 270b3d7).
 */
export const DEBLUR_NOISE = 0.001;

/**
 * The `smoothed` filter's Gaussian σ (px, after upscaling): a dim photo's sensor noise taken out, as
 * zxing's binarizer otherwise splits noisy modules. 2026-11-23 (commit 60a6cd2, the same change as the
 * locator: seed 42's low-light barcodes 1/4 → 4/4 for the change as a whole), no figure recorded for it
 * alone.
 */
export const BARCODE_SMOOTHING_SIGMA = 0.8;

/**
 * A 2012 front's PDF417 as zxing outlines it, width over the height of its left edge (its start pattern),
 * measured 2026-11-30 on the first photos of corpus seed 99's 2012 fronts (documents 0–40, 25 read):
 * 3.85–4.03, median 3.93; the RENAPER 2012 specimen 4.28. Two blurred photos (s99-000008, s99-000104)
 * came out at 3.13 and 3.18: zxing decoded them without the stop pattern and the last columns, the
 * outline 21% short, and the card's frame, measured in the symbol's widths, shrank toward the symbol
 * (the number's first digit fell outside the window, a 4 cut to a 1). Under `MIN_FRONT_SYMBOL_ASPECT`
 * the outline is taken as short and its right edge moved out to `FRONT_SYMBOL_ASPECT` times its left
 * edge's height.
 */
export const MIN_FRONT_SYMBOL_ASPECT = 3.5;
export const FRONT_SYMBOL_ASPECT = 3.93;
