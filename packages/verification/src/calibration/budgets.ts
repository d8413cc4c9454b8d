/**
 * What a side's reading may spend. The budgets are counted (megapixels through zxing, OCR passes), so the
 * same photo gives the same reading whatever the machine's load; the wall-clock caps only end
 * pathological searches (docs/documents.md "Reading images", "Budgets are counted, not timed").
 */

/**
 * The searches' budgets, in work rather than time: the same photo is searched as far, and so read the
 * same, on an idle machine and on a loaded one.
 */
export interface SideWorkLimits {
  /** Megapixels through zxing for the barcode's first stage (the whole photo as taken and deskewed). */
  first_barcode_megapixels: number;
  /** OCR passes for the MRZ search; finding the MRZ's blocks costs none. */
  mrz_ocr_passes: number;
  /** Megapixels through zxing for the barcode's later stages (located crops, regions, ladder of tilts). */
  barcode_megapixels: number;
  /** Megapixels through zxing for located symbols with their blur undone, once everything else failed. */
  deblur_megapixels: number;
}

/**
 * Sized on the corpus (bench/documents, seed 42): the first stage covers two located candidates (about
 * 1 MP each) and the photo as taken and turned by its skew (about 2 + 2.6 MP, twice when a licence's QR is
 * refused first); 8 OCR passes cover the first turn's two blocks in every variant and two more turns;
 * 24 MP cover the located crops, the regions at two turns and the first rungs of the ladder. On this
 * 2-core machine (idle) a megapixel through zxing costs 20–40 ms and an OCR pass 0.1–0.4 s. A deblurred
 * attempt is a located crop at about 1500 px wide (0.8–1 MP): 6 MP cover the three blurs tried on two
 * candidates. Counted budgets since 2026-11-23 (commit 60a6cd2; bench/documents/README.md "Measured
 * 2026-11-23, counted budgets and the barcode locator": seed 42 barcodes 67.5% → 85.0%, MRZ 60.0% →
 * 72.0%, no false accept), the deblur budget since 2026-11-25 (commit 270b3d7). The sizes were worked out
 * from the attempts' costs above; no sweep is recorded.
 */
export const DEFAULT_SIDE_WORK: SideWorkLimits = {
  first_barcode_megapixels: 12,
  mrz_ocr_passes: 8,
  barcode_megapixels: 24,
  deblur_megapixels: 6,
};

/**
 * The side's wall-clock safety cap. Generous: an ordinary side takes 0.3–3 s of CPU; this only ends
 * pathological searches. Set 2026-11-23 (commit 60a6cd2) when the budgets became counted; no figure
 * recorded beyond that range.
 */
export const DEFAULT_SIDE_SAFETY_CAP_MS = 30_000;

/**
 * The legacy engine, shown a screen's moiré as text, takes 20–50 s over one crop (measured on the
 * corpus's screen recaptures) where a real MRZ takes 0.1–0.4 s; a job cannot be cancelled, so past
 * `timeoutMs` the worker is ended (the next call starts a new one, about a second) and the call rejects
 * with `OcrTimeoutError` (`readers/ocr.ts`). This is a safety cap, not a budget: it is set far above an
 * ordinary pass even on a loaded machine (3 s, the earlier cap, was reached by ordinary passes when the
 * machine was loaded and made the reading depend on the load); the searches count their passes instead.
 * 10 s since 2026-11-23 (commit 60a6cd2, when the budgets became counted).
 */
export const DEFAULT_OCR_TIMEOUT_MS = 10_000;

/**
 * The OCR pass's safety cap on a photo the recapture model judged a screen or a print. The legacy engine
 * spends 5–50 s on a screen's moiré read as text (seed 7's s7-000018 back: 23 s in its MRZ search, the
 * benchmark's p99), and such a photo is refused whatever it shows (`document_screen_detected`), so its
 * reading only informs; an ordinary zone pass takes 0.1–0.4 s. Wall-clock, like every safety cap: on a
 * machine loaded far beyond its cores it may cut a pass that would have read, on a photo refused anyway.
 * Since 2026-11-26 (commit 1e74fa5): s7-000018's back 23 → 2.8 s in its MRZ search, s42-000058's front
 * 12 → 2.9 s (docs/documents.md "Reading images").
 */
export const RECAPTURE_OCR_TIMEOUT_MS = 2_000;

/**
 * The safety cap of the passes read only to find the names the second engine reads (`readWholeZone`):
 * an ordinary zone pass takes 0.1–0.4 s; on a machine loaded beyond its cores one cut short leaves the
 * names withheld, as they were before the pass. Since 2026-11-27 (commit 1187c13: s99-000057's binarised
 * pass ran to the 10 s cap).
 */
export const ARBITRATION_OCR_TIMEOUT_MS = 3_000;
