/**
 * The card outline's search (`pipeline/card-outline.ts`, `findCardOutline`): how the four straight edges
 * between a document and what it lies on are found. All chosen together on 2026-11-29 (commit 673bdef,
 * issue 38) on 72 fronts of corpus seed 31 (2012 and 2009 DNIs, passports; clean and in perspective; every
 * surface but the white table): with them every corner lies within 3.1 px of the label's at 1400 × 1000,
 * and no outline is found on the 48 white-table photos. Those are the only figures on record: no
 * sweep of the individual values is recorded. What the outline
 * then decides (`ANGLED_FRONT_LIMITS.minOutlineChange`) was calibrated with these values in place: change
 * one, and re-run `node packages/corpus/dist/cli.js calibrate-angle --count 20` (docs/documents.md "The
 * angled front").
 */

/**
 * The copy the lines are looked for on (long side, px): the card's edges are long, its print is not; and
 * the copy the sides are fitted on.
 */
export const SEARCH_SIDE = 400;
export const REFINE_SIDE = 800;

/** Hough resolution (one step a degree) and the share of pixels taken as edges, with a floor on strength. */
export const THETA_STEPS = 180;
export const EDGE_PERCENTILE = 0.85;
export const MIN_EDGE_STRENGTH = 12;

/** Lines kept (after suppressing near-duplicates), and what counts as a near-duplicate. */
export const MAX_LINES = 22;
export const SAME_LINE_DEGREES = 4;
export const SAME_LINE_PIXELS = 8;

/**
 * A side's direction may differ from its opposite side's by this much (perspective) and from the
 * neighbouring sides' by at least `MIN_CORNER_DEGREES` (90° minus perspective and shear).
 */
export const MAX_PAIR_DEGREES = 30;
export const MIN_CORNER_DEGREES = 50;

/** A document's shape: long side over short side (ID-1 1.59, a passport page 1.42), foreshortened. */
export const MIN_ASPECT = 1.05;
export const MAX_ASPECT = 2.6;

/** The outline covers at least this share of the photo, and its corners lie at most this far outside it. */
export const MIN_AREA_SHARE = 0.08;
export const OUTSIDE_MARGIN = 0.04;

/** A side is an edge where the gradient across it is strong and points across it. */
export const SIDE_ANGLE_TOLERANCE_DEGREES = 20;
export const MIN_SIDE_SUPPORT = 0.55;

/** The bands beside a side whose colours are compared (px of the search copy, from the side). */
export const BAND_FROM = 2;
export const BAND_TO = 5;

/**
 * Below this colour difference between a side's inside and outside bands (luma and opponent channels,
 * 0–255 each) the outline is not told: a card on a surface of its own colour. Seed 31 (2026-11-29): the
 * corpus's white table measured 26 or less, every other surface 98 or more; 50 lies between.
 */
export const MIN_CONTRAST = 50;
