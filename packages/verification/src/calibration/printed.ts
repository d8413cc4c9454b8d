/**
 * The printed fields' reading (`readers/printed.reader.ts`, `readers/printed-labels.ts`,
 * `readers/text-fragments.ts`): where a field's text is looked for, at what scale and ink level it is shown
 * to the engine. Re-measured by `node bench/documents/printed.mjs --seed 31 --count 120` (the front's print
 * through the flow's attempts) and `node bench/documents/run.mjs --seed 42` (field-exact, false accepts);
 * the dated sections of bench/documents/README.md hold the figures quoted here.
 */

/**
 * Ink for the label finder (`textFragments`): a share of the window's contrast darker than its
 * surroundings. Labels print small and grey, and at 0.2 (what the MRZ's locator asks of its bold
 * characters) the passports' labels of the test-mode samples were lost; at 0.12 and 0.2 the corpus's DNI
 * fronts read alike (seed 21). 2026-11-29 (commit 6160837, the print read by its labels).
 */
export const LABEL_DROP = 0.15;

/**
 * The stacked pass (`printed-labels.ts`), 2026-11-29 (commit 6160837; bench/documents/README.md "Measured
 * 2026-11-29: the front's print read by its labels", seed 31, 120 documents: every needed field right on
 * the first clean photo 1/20 → 20/20, altered prints caught 3/8 → 8/8). No sweep of these values is recorded:
 * runs of text are scaled so that each stands `STACK_RUN_PX` tall (its letters about 30 px, what the
 * engine reads best), with `RUN_MARGIN` of its height white above and below and `STACK_GAP_PX` between
 * runs so that the engine sees one line per run; more than `MAX_STACKED_RUNS` runs in the label area is
 * not a card's print (a photo of a page, a screen's moiré) and the rest are not read.
 */
export const STACK_RUN_PX = 40;
export const RUN_MARGIN = 0.25;
export const STACK_GAP_PX = 20;
export const MAX_STACKED_RUNS = 60;

/**
 * How far above and below its box a value is looked for, as a share of the box's height; less than half
 * the spacing of two value rows on every layout (2009 front: rows 0.37 MRZ heights apart, boxes 0.3).
 * 2026-11-27 (commit c0ccda7, printed fields read on their rows), from the layouts' geometry.
 */
export const ROW_SEARCH_SLACK = 0.7;
/**
 * A label's letters stand at most about 0.7 of its value's (specimens 10 against 15-17 px, the corpus's
 * 2009 front 7.9 against 14.3 units); a band this much shorter than the tallest in the window is a label.
 * 2026-11-27 (commit c0ccda7).
 */
export const VALUE_ROW_SHARE = 0.72;
/**
 * Rows a value's accents (Ñ's tilde, an acute) stand apart from its letters by, as a share of the window.
 * 2026-11-27 (commit c0ccda7), no figure recorded.
 */
export const ACCENT_GAP_SHARE = 0.05;

/**
 * A field's crop is scaled so a line of text stands about this tall for OCR. 2026-11-23 (commit 0455c31),
 * no figure recorded.
 */
export const FIELD_HEIGHT_PX = 72;
/**
 * Printed values are black; the guilloche, seal and specimen stamp are lighter and drop out below this.
 * 2026-11-23 (commit 0455c31), no figure recorded.
 */
export const INK_THRESHOLD = 100;

/**
 * A crop darker than this share at `INK_THRESHOLD` is a dim photo whose paper fell under the threshold
 * with its ink: it is stretched first, then thresholded. A block crop still darker is not read: nothing in
 * it can be, and the engine spends 1.5–10 s on the noise (the corpus's low-light passports). Measured on
 * the crop as the engine is given it (2026-11-27, commit cfe144f; the stretch first since 2026-11-28, commit
 * 35d92bc): over 200 passports (corpus seed 5001) the zones read measured 0.09 at most and no other crop
 * fell between 0.11 and 0.71.
 */
export const MAX_BLOCK_INK_SHARE = 0.5;

/**
 * A dim crop is smoothed (in output pixels: its sensor noise, stretched, would be read as specks of ink)
 * and stretched before it is thresholded. Chosen 2026-11-28 (commit 35d92bc) on the 32 low-light fronts of
 * seeds 99, 42 and 7 (values read right / wrong over surnames, given names, numbers, sex, birth and expiry
 * dates): before, 1 / 0; threshold 100 and blur 2 px, 46 / 0; threshold 70, 50 / 1 (`MOUNA`); 128, 39 / 0;
 * blur 3, 38 / 1.
 */
export const STRETCHED_INK_THRESHOLD = 100;
export const STRETCHED_BLUR_PX = 2;

/**
 * A value read in its own crop is scaled so that its letters stand this tall: not the stacked pass's 40,
 * so the second read is not the first one's pixels again. 2026-11-29 (commits 6160837, 56ac7f1), no sweep
 * recorded.
 */
export const VALUE_RUN_PX = 52;
/**
 * A value's crop, stretched, keeps as ink only what is darker than this (or its own threshold when that
 * is lower): values print black, and what crosses them (the 2012 card's seal, its labels' grey, a
 * guilloche) is lighter. 2026-11-29 (commit 6160837), no sweep recorded.
 */
export const VALUE_INK_MAX = 110;

/** How a value's own crop is shown to the engine: its letters' height, and what of it is ink. */
export interface ValueLook {
  heightPx: number;
  inkMax: number;
  /** Only the crop's darkest tone is ink, at this share of its three-tone threshold (`BinarisingOptions.darkest`). */
  darkest?: number;
  /** Nothing but the value's own rows (`BinarisingOptions.paperAround`). */
  paperAround?: boolean;
}

/**
 * The last look at a value: smaller and keeping only the darkest ink, where a seal's lines still crossed
 * the first crop's digits (corpus seed 21: the 2012 fronts' expiry dates under the seal, 6 of 12 unsettled
 * after three reads, 2 of 12 after this fourth). 2026-11-29 (commit 6160837).
 */
export const FINE_LOOK: ValueLook = { heightPx: 36, inkMax: 80 };
/**
 * Only the crop's darkest tone (`darkestInkThreshold`): on a dim photo the 2012 card's seal keeps too
 * little colour for the ink level to lift it, and crosses the dates' first characters as dark as a
 * value's ink at the thresholds above (s31-000004's expiry: read `12 JUL/ JUL 2038` only so). 2026-11-29
 * (commit 56ac7f1; bench/documents/README.md "the 2012 front's expiry implied by its issue date").
 */
export const DARKEST_LOOK: ValueLook = { heightPx: VALUE_RUN_PX, inkMax: 255, darkest: 1, paperAround: true };
/**
 * Darker still, where that threshold kept the seal's densest strokes (s31-000004's expiry, three-tone
 * threshold 71: read `32 JUL BIL 2038`; under 40, `12 JUL/ JUL 2038`). 2026-11-29 (commit 56ac7f1).
 */
export const DEEPEST_LOOK: ValueLook = { heightPx: VALUE_RUN_PX, inkMax: 255, darkest: 0.55, paperAround: true };
/**
 * Larger, for a small print (the RENAPER specimen's 900 px scan: its expiry read `310CT/0CT 2002` only
 * there, beside `310CT/ OCT 2002` in the look before). 2026-11-29 (commit e789cde).
 */
export const LARGE_LOOK: ValueLook = { heightPx: 72, inkMax: 95 };

/**
 * The widest a line of the 2012 front's print stands, in its own heights: the data column (0.93 of the
 * barcode's width) holds at most ≈ 33 heights of the labels' capitals, and the widest line measured, the
 * header's `REGISTRO NACIONAL DE LAS PERSONAS`, is 27 (bench/verification's six cards, 1600×1200). A
 * longer patch is the card's edge or its shadow at the label area's foot: 60, 84 and 105 heights on three
 * of those six cards, where the stacked pass read it at 0.7–1.3 s more than the same stack without it.
 * 2026-12-01 (docs/performance.md "The card's edge out of the stacked pass").
 */
export const WIDEST_2012_FRONT_LINE = 45;
