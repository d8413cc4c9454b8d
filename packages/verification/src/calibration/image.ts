/**
 * The image work shared by the readers: the analysis copy a side's skew and barcode location are
 * measured on, the skew estimate, and the descreening of a recaptured MRZ zone (`image/descreen.ts`).
 */

/**
 * The skew estimate and the barcode locator work on a copy whose long side is this (px). Set 2026-11-23
 * (commit 60a6cd2, with the barcode locator; bench/documents/README.md "Measured 2026-11-23, counted
 * budgets and the barcode locator": seed 42's barcodes 67.5% → 85.0% for that change as a whole), no other
 * size measured.
 */
export const ANALYSIS_SIDE = 800;

/**
 * A skew estimate smaller than this (degrees) is within zxing's and tesseract's own tolerance, and the
 * side is read as taken. Set 2026-11-23 (commit 0455c31), no figure recorded.
 */
export const MIN_SKEW_DEGREES = 2;

/**
 * The skew estimate's ink mask: the local mean's box as a share of the copy's long side. At the 600–800 px
 * the estimate is made at, a character is 8–15 px tall. 2026-11-23 (commit 1dbf51d), no figure recorded.
 */
export const SKEW_INK_RADIUS_SHARE = 0.012;

/**
 * Descreening (`image/descreen.ts`): each tile (`DESCREEN_TILE` px, half overlapping) is transformed,
 * every frequency whose magnitude stands more than `DESCREEN_PEAK_DECADES` above the mean of the ring
 * around it (the `DESCREEN_RING_OUTER`² bins around it without the `DESCREEN_RING_INNER`² at its centre:
 * a peak smeared over its neighbours by a grid's slow change of period) is brought down to that ring, and
 * periods of `DESCREEN_PROTECTED_PERIOD_PX` and more (at the OCR's width an MRZ character's pitch is
 * 25–40 px) are never touched. Chosen together 2026-11-27 (commit b47aee8) on seeds 42, 7 and 99: over
 * their 150 MRZ sides, 138 → 141 read exactly, none lost (bench/documents/README.md "Measured 2026-11-27
 * (sixth session): screens' zones descreened"); no figure is recorded for the values one by one.
 */
export const DESCREEN_TILE = 64;
/** log10 of magnitude above the ring's mean: 0.5 decades is 3.2 times the ring. */
export const DESCREEN_PEAK_DECADES = 0.5;
export const DESCREEN_PROTECTED_PERIOD_PX = 12.8;
/** The ring: 7×7 bins around a frequency without the 3×3 at its centre. */
export const DESCREEN_RING_OUTER = 3;
export const DESCREEN_RING_INNER = 1;

/**
 * The ink mask's defaults (`readers/ink.ts`, `inkMask`), used by the MRZ locator, the skew estimate and
 * the erasure count. Ink is darker than its surroundings by `INK_DROP` of the contrast (5th to 95th
 * percentile), and never by less than `INK_MIN_DROP_LEVELS` grey levels (sensor noise in a dim photo is
 * σ ≈ 10 levels): both 2026-11-23 (commit 1dbf51d), no figure recorded. Its wider surroundings are paper
 * when their mean reaches `INK_PAPER_SHARE` of the contrast above the 5th percentile (also 1dbf51d), or
 * the mean of their pixels not darker than their own surroundings (the paper between strokes) reaches
 * `INK_BACKGROUND_SHARE`: 2026-11-26 (commit 1e74fa5; bench/documents/README.md "Measured 2026-11-26
 * (fourth session)", item 2: s7-000046's zone read exactly; the second test alone at 30% let a dim
 * photo's noisy table in, s99-000007).
 */
export const INK_DROP = 0.18;
export const INK_MIN_DROP_LEVELS = 12;
export const INK_PAPER_SHARE = 0.3;
export const INK_BACKGROUND_SHARE = 0.5;
