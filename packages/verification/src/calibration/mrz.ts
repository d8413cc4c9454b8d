/**
 * The MRZ search (`readers/mrz.reader.ts` and `readers/mrz-search/`): where the zone is looked for, how
 * its crops are read and repaired, and when a read is believed. The benchmarks that re-measure them:
 * `node bench/documents/run.mjs --seed 42` (and seeds 7, 99: their MRZ sides read side by side), whose
 * dated sections in bench/documents/README.md hold the figures quoted here.
 */

/**
 * The whole turned image is searched for MRZ-like lines at this width before any OCR; a block in its top
 * half is read turned by 180° (the page is upside down), so each turn covers two orientations. Set
 * 2026-11-23 (commit 0455c31, issue 10's first increment), no other width measured.
 */
export const MRZ_ANALYSIS_WIDTH = 1000;

/**
 * The locator's Gaussian σ (px at `MRZ_ANALYSIS_WIDTH`, where an MRZ character is 14–25 px tall): a dim
 * photo's sensor noise (σ 4–10 grey levels) otherwise passes for ink between the lines and joins them to
 * the page's text into one block (corpus, low light). Since 2026-11-25 (commit 270b3d7), no figure
 * recorded for it alone.
 */
export const MRZ_LOCATOR_BLUR = 1;

/**
 * Blocks OCR'd per turn, nearest the page's bottom (or top) edge first: the MRZ is the page's last text.
 * 2026-11-23 (commit 0455c31), no figure recorded.
 */
export const MRZ_BLOCKS_PER_TURN = 2;

/**
 * The locator's columns (`readers/mrz-locator.ts`): a band's width is cut into this many bins to find
 * its lines' runs of ink. 2026-11-23 (commit 0455c31), no figure recorded.
 */
export const MRZ_COLUMN_BINS = 60;

/**
 * The locator's ink mask: the local mean's box as a share of the band's width, about an MRZ character at
 * the analysis width. 2026-11-23 (commit 1dbf51d), no figure recorded.
 */
export const MRZ_LOCATOR_INK_RADIUS_SHARE = 0.012;

/**
 * Vertical strips the zone's band is cut into to trace each line (`readers/rectify.ts`): enough points
 * for a fit, each strip still a few characters wide. Since the rectified read, 2026-11-25 (commit
 * 270b3d7), no figure recorded for it alone.
 */
export const RECTIFY_STRIPS = 16;

/**
 * The text repairs of an OCR line (`readers/mrz-text.ts`), bounds on the work, set 2026-11-23 (commit
 * 0455c31), no figure recorded: a line's last run of fillers is lengthened or shortened by at most
 * `MAX_FILLER_ADJUSTMENT` to fit the format; a joined run of words may go `MAX_EXCESS` characters past the
 * line's length (the excess is cut as a window: a stray mark of the card's edge glued to the line); at
 * most `MAX_CANDIDATES` combinations are tried per OCR result (a line rarely has more than two or three
 * options).
 */
export const MAX_FILLER_ADJUSTMENT = 2;
export const MAX_EXCESS = 8;
export const MAX_CANDIDATES = 64;

/**
 * The cell vote across a search's reads (`voteCells`): cells tied between two characters are tried both
 * ways, up to this many (four readings at most). Since 2026-11-28 (commit c5bfb91: seed 42's MRZ 96 →
 * 98%).
 */
export const MAX_TIED_CELLS = 2;

/**
 * Sharp photos' text edges measure 0.8–1.1 px at the OCR width (as the barcodes' do, `deconvolve.ts`);
 * from this estimated blur (px) up, a zone is read deblurred and its glyphs matched deblurred. Since
 * 2026-11-25 (commit 4e59978: a blurred zone deblurred as the last variants), no sweep recorded.
 */
export const MRZ_MIN_DEBLUR_SIGMA = 1.4;

/**
 * A zone whose crop, stretched at the OCR's width, is this noisy (`noiseSigma`) is read smoothed: a dim
 * photo's sensor noise, multiplied by the stretch, is read by the legacy engine as a field of small
 * characters, slowly (6 s, and the 10 s safety cap, over one such zone) and wrongly. Ordinary photos and
 * prints measure 1–5, dim ones 5–25 (corpus seeds 6001 and 6002); from 10, over 32 zones of the two,
 * the crops as they are read 16 exactly and smoothed 25 (docs/documents.md "Reading images"). Since
 * 2026-11-27 (commit fd4237d: seed 6001's zones 222 → 224 of 240 exact, slowest side 16.1 → 4.9 s).
 */
export const NOISY_ZONE_SIGMA = 10;

/**
 * MRZ lines converging by at least this much (`MrzBandGeometry.convergence_deg`) are a keystone that a
 * rectangular crop does not hold: s42-000023's lines converge by 0.82°, the plain and the wide crop cut
 * the bottom of its names line alike and both read `RHT7<<70F` for `RUIZ<<ZOE` (Z as 7, E as F: the
 * bottom strokes gone), which then counted as names read twice the same. Over seed 42's other 48 MRZ
 * sides the lines converge by 0.02–0.67° (perspective photos 0.21–0.49°); at 0.5° three of them (a
 * print, a screen and the keystoned back) get the straightened check (docs/documents.md). Since
 * 2026-11-26 (commit bd096a3: seed 42's MRZ 88 → 90%).
 */
export const KEYSTONE_CHECK_DEG = 0.5;

/**
 * Below this OCR confidence in any letter of an MRZ's names, they are not given back, nor asked of the
 * second engine. The floor was 75 before the second read (`names_second_read`) existed: names read wrong
 * had their weakest letter at 70–73 (seed 42) and 78 (seed 7), right ones at 67–92, so a floor could not
 * separate them and the two engines agreeing is what does. At 60 (2026-11-26) the second engine gave back
 * seed 42's right names at 67 and 72 and withheld its wrong ones at 71 and 73 (bench/documents/README.md
 * "Measured 2026-11-26 (later), the names' confidence floor at 60"); it stays as a floor under which a
 * read is too uncertain to be worth the second pass.
 */
export const MIN_NAME_CONFIDENCE = 60;

/**
 * The filler after a word, looked at (`readers/filler-glyphs.ts`): each cell sampled on a
 * `FILLER_CELL_COLUMNS` × `FILLER_CELL_ROWS` grid (enough for a chevron's two strokes against a letter's
 * shape), a template needs at least `MIN_TEMPLATE_FILLERS` filler cells (fewer make a template of one
 * photo's noise), and a symbol sits at most `MAX_PITCH_DEVIATION` of a pitch from where its neighbours put
 * it. Set with the threshold below, 2026-11-26 (commit 3a36cef); only the threshold was measured.
 */
export const FILLER_CELL_COLUMNS = 12;
export const FILLER_CELL_ROWS = 16;
export const MIN_TEMPLATE_FILLERS = 3;
export const MAX_PITCH_DEVIATION = 0.4;

/**
 * Calibrated on the names lines of the corpus's valid MRZ reads (bench/documents seeds 42, 7, 99; every
 * degradation, docs/documents.md "The filler after a word, looked at"; 2026-11-26, commit 3a36cef): 1,860
 * filler cells scored 0.850 and above, 1,838 letter cells at most 0.770 (a K, whose arms are a chevron;
 * every other letter ≤ 0.65). Between the two, nearer the letters' side would accept a misread letter
 * sooner; nearer the fillers' side costs only a second read that stays `disagreed`.
 */
export const FILLER_GLYPH_THRESHOLD = 0.8;

/**
 * The glyph read (`readers/mrz-glyphs.ts`, `readers/mrz-search/glyphs.ts`), 2026-11-28 (commit 7038c53:
 * seed 99's MRZ read rate 89.2 → 96.4%, its blurred zones 17/17; bench/documents/README.md "Measured
 * 2026-11-28: MRZ zones matched glyph by glyph"). The zone is straightened at a width that makes a cell
 * `GLYPH_CELL_PX` wide (OCR-B characters then stand 26 px tall); the `GLYPH_CONTENDERS` templates that
 * matched a cell best where the grid put it follow it while it is moved into place (every template at
 * every position cost five times as much, for the same reads); a cell matched at least `TRACKING_SCORE`
 * sets where the next one stands. No sweep of those three is recorded.
 */
export const GLYPH_CELL_PX = 24;
export const GLYPH_CONTENDERS = 4;
export const TRACKING_SCORE = 0.7;

/**
 * The lowest mean correlation of a line's cells for the glyph read's line to count as read. Measured on
 * seeds 99 and 42 (2026-11-28, commit 7038c53): the lines of seven zones read exactly (blurred by σ 0.9–4
 * px, glared) 96.2–99.1; lines read with the grid off their glyphs (a dim zone, its lines assumed level;
 * s99-000157 read astray and rejected as a genuine page) 43.6–81.3.
 */
export const MIN_LINE_SCORE = 0.88;

/**
 * Ink in a zone's stretched crop, for counting the characters a glare erased (`readers/mrz-erasure.ts`):
 * dark enough to be a stroke, whatever the paper's tone. 2026-11-27 (commits 1af113b, 9f0b15a), set by
 * hand with `ERASED_BY_GLARE`, no figure recorded for it alone.
 */
export const ERASURE_INK_BELOW = 110;

/**
 * A zone that did not read and whose lines lost their ink over this many characters was under a glare
 * (`erasedCharacters`): 3.5–6.2 on the three glared zones of corpus seeds 42, 7 and 99 that did not
 * read, at most 2.5 on their other 147 zones but a screen's (7.0, told as a screen first). 2026-11-27
 * (commit 1af113b; bench/documents/README.md "Measured 2026-11-27 (fifth session)": over the 300 sides
 * of the three seeds `glare` is said beyond the photo's own measure on exactly those three, no reading
 * changed).
 */
export const ERASED_BY_GLARE = 3;

/**
 * The smoothing of a noisy zone (`denoiseSigma`): Gaussian σ in px at the 1200 px OCR width (scaled with a
 * variant's width), by the lines the locator counted. The characters of a two-line zone (TD3's 44 a line,
 * TD2's 36) stand 0.68–0.83 as wide at that width as a TD1's 30: smoothed as much, a passport's M became H
 * and its 5 an S (s99-000037, s99-000047). Measured per σ on corpus seed 6002's dim zones from 10
 * (2026-11-27, commit e634766): TD1 (10 zones) 7 exact as they are, 8 at 0.75, 9 at 1–1.5; TD3 (11) 5 as
 * they are, 8 at 0.75, 7 at 1, 5 at 1.5.
 */
export const NOISY_ZONE_SMOOTHING = { threeLines: 1.5, twoLines: 0.75 } as const;

/**
 * The OCR crops of a zone (`readers/mrz-search/variants.ts`): widths at which OCR-B characters stand
 * 20–40 px tall, the plain crop's and a wider one's (a second resampling that checks the first's names).
 * 2026-11-23 (commit 0455c31), no sweep recorded.
 */
export const MRZ_OCR_WIDTH = 1200;
export const MRZ_WIDE_OCR_WIDTH = 1600;

/** The binarised crop's threshold (grey level). 2026-11-23 (commit 0455c31), no figure recorded. */
export const MRZ_BINARISED_THRESHOLD = 110;

/**
 * The light binarised crop's threshold: a glare over the zone lifts the ink it covers to a grey of 150–200
 * while the paper around stays white (s99-000006: `1000000` and `59F` under a reflection read as `1P JO`
 * and a gap by every other variant); pixels darker than 200 become ink, which gives them back their
 * strokes. 2026-11-26 (commit 4736a3e: seed 99's MRZ 90 → 92%, field-exact 75.0 → 76.7%, seeds 42 and 7
 * unchanged document by document).
 */
export const MRZ_BINARISED_LIGHT_THRESHOLD = 200;

/**
 * The deblurred crops' strengths (σ as estimated times `sigmaFactor`, Wiener noise ratio), each checking
 * the other's names. Measured on seed 42's blurred passport (σ 3.0 px), 2026-11-25 (commit 4e59978): plain
 * `P<OIA6ARCIA`, every check digit but two failing; deblurred at σ 3.1 and noise ratio 0.01, and at σ 3.6
 * and 0.03, valid and exact; at σ 3.0, one digit off.
 */
export const MRZ_DEBLUR = { sigmaFactor: 1, noise: 0.01 } as const;
export const MRZ_DEBLUR_STRONGER = { sigmaFactor: 1.2, noise: 0.03 } as const;
