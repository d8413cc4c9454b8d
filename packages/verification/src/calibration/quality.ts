/**
 * How the quality assessment (`quality/`) measures a photo: the scale it works at and the recapture
 * spectrum's tiles, band, rings and comb test. These were set when the measures were written
 * (2026-11-23, commit 0455c31, issue 10) and changed on the dates below; the model and limits fitted on
 * what they measure (`SCREEN_MODEL`, `QUALITY_LIMITS` in `thresholds.ts` beside this file) are what the
 * corpus's calibration gave. Change any of these and recalibrate:
 * `node packages/corpus/dist/cli.js calibrate --count 800 --recapture-only --held-out-seed 3003` for the
 * model, `calibrate --count 400` for the capture limits (docs/documents.md "Screen and print recapture").
 */

/**
 * The pixels the quality measures work on are at most this many px on the long side: phones upload about
 * 1600 px, the calibration was made at that size, and the recapture features depend on the pixel scale.
 * Set 2026-11-23 (commit 0455c31) to the corpus's photo size; no other size was measured.
 */
export const QUALITY_MAX_SIDE = 1600;

/**
 * A washed-out pixel: every channel at or above 245 (a specular reflection clips all three; a white card
 * under good light stays below, as cameras expose for it). Glare is the share of such pixels. Set
 * 2026-11-23 (commit 0455c31), no figure recorded; `QUALITY_LIMITS.glareAbove` was fitted on it.
 */
export const WASHED_OUT_LEVEL = 245;

/**
 * Sharpness is the variance of the Laplacian measured at this many px on the long side (box-averaged down
 * to it first), so that the figure does not depend on the upload's resolution and sensor noise is
 * averaged away before it can pass for detail. Set 2026-11-23 (commit 0455c31), no figure recorded;
 * `QUALITY_LIMITS.blurBelow` and `SCREEN_MODEL.minLogBlur` were fitted on it.
 */
export const BLUR_SCALE_SIDE = 800;

/**
 * The recapture spectrum's tile (px): the spectrum is averaged over a grid of 256 px tiles of the document
 * (Welch's method: periodic peaks add up, content averages out). 2026-11-23 (commit 0455c31), no
 * alternative measured.
 */
export const SPECTRUM_TILE = 256;

/**
 * At most this many tiles along one side of the box: four across a 1600 px photo, three down its 1200 px.
 * From 2026-11-27 (commit ce8a0ba: twelve tiles spread over the photo instead of four in its middle,
 * recalibrated on 800 documents a split; held out 92.5% detected at 2.3% false alarms on seed 3003, 91.0%
 * at 1.1% on seed 2002; bench/documents/README.md "Measured 2026-11-27: the recapture model recalibrated").
 */
export const MAX_TILES_ACROSS = 4;

/**
 * Band of the peaks, in cycles per tile: periods from 16 px (256/16) down to about 2.1 px (256/120), where a
 * screen's grid and a print's halftone fall (2–12 camera pixels). 2026-11-23 (commit 0455c31), no figure
 * recorded.
 */
export const SPECTRUM_BAND_LOW = 16;
export const SPECTRUM_BAND_HIGH = 120;

/**
 * The ring a candidate peak is compared with, in frequency bins (a Hann-windowed peak is about 4 bins
 * wide), and the points sampled on it. 2026-11-23 (commit 0455c31), no figure recorded.
 */
export const PEAK_RING_RADIUS = 4;
export const PEAK_RING_POINTS = 16;

/**
 * A peak this many decades (log10 units of power) above its ring counts towards `peak_count`.
 * 2026-11-23 (commit 0455c31), no figure recorded; the feature (`luma_peak_count`) enters the model since
 * 2026-11-23 with the weight the calibration gives it.
 */
export const COUNTED_PEAK_DECADES = 1;

/**
 * The comb test (`quality/spectrum.ts`): a peak at k that has a comparable peak at k·(n−1)/n, for n up to
 * `COMB_HARMONICS`, is a member of a text line's comb of harmonics, not evidence of a recapture.
 * "Comparable": the previous harmonic reaches at least halfway up the peak from its ring (`COMB_SHARE` of
 * its prominence). Since 2026-11-27 (commit f64a3f9); until then "within one decade of the peak's power",
 * which hid every halftone under a decade. With the model refitted on it, held out on seeds 2002 and 3003:
 * 499/534 recaptures detected at 39/2136 false alarms, was 490/534 at 37/2136 (docs/documents.md "Screen
 * and print recapture"). `COMB_HARMONICS` dates from 2026-11-23 (commit 1dbf51d), no figure recorded.
 */
export const COMB_SHARE = 0.5;
export const COMB_HARMONICS = 12;
