import { createWorker, OEM, PSM, type Worker } from 'tesseract.js';

/**
 * One tesseract.js worker per thread, created on first use and reused: its model (the English
 * traineddata with the legacy engine) is read from `@tesseract.js-data/eng`'s `4.0.0` folder in
 * node_modules, never downloaded, and never written to a cache file (`cacheMethod: 'none'`).
 *
 * The legacy engine (`OEM.TESSERACT_ONLY`) with a whitelist reads OCR-B MRZ lines well where the LSTM
 * engine garbles runs of '<' (TOOLING.md). The same engine reads the DNI's printed fields in small
 * crops; it reads upper-case Latin letters without accents, which is how names are compared anyway.
 */
let worker: Promise<Worker> | null = null;
// The worker runs one job at a time; parameters and recognition of one call must not interleave with another's.
let queue: Promise<unknown> = Promise.resolve();

function languagePath(): string {
  // The package's main module exports the folder of its full (legacy + LSTM) model.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const data = require('@tesseract.js-data/eng') as { langPath: string };
  return data.langPath;
}

function ensureWorker(): Promise<Worker> {
  if (worker === null) {
    worker = createWorker('eng', OEM.TESSERACT_ONLY, {
      langPath: languagePath(),
      cacheMethod: 'none',
      gzip: true,
      legacyCore: true,
      legacyLang: true,
    });
    // A failed start must not stay cached: the next call tries again.
    worker.catch(() => {
      worker = null;
    });
  }
  return worker;
}

export interface OcrBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface OcrLine {
  text: string;
  /** Tesseract's confidence, 0–100. */
  confidence: number;
  bbox: OcrBox;
  words: { text: string; confidence: number; bbox: OcrBox; symbols: { text: string; confidence: number }[] }[];
}

export interface OcrResult {
  text: string;
  confidence: number;
  lines: OcrLine[];
}

export interface OcrOptions {
  whitelist: string;
  /** Page segmentation: a block of lines (MRZ band) or one line (a printed field). */
  mode: 'block' | 'line' | 'sparse';
  /**
   * Whether the classifier adapted on earlier reads of this worker is used and adapted further (the
   * engine's default, true). The MRZ reader turns it off: its reads then depend on its image alone.
   */
  adaptive?: boolean;
}

const MODES: Record<OcrOptions['mode'], PSM> = {
  block: PSM.SINGLE_BLOCK,
  line: PSM.SINGLE_LINE,
  sparse: PSM.SPARSE_TEXT,
};

export class OcrTimeoutError extends Error {
  constructor(ms: number) {
    super(`OCR gave no answer within ${ms} ms`);
    this.name = 'OcrTimeoutError';
  }
}

/**
 * The legacy engine, shown a screen's moiré as text, takes 20–50 s over one crop (measured on the
 * corpus's screen recaptures) where a real MRZ takes 0.1–0.4 s; a job cannot be cancelled, so past
 * `timeoutMs` the worker is ended (the next call starts a new one, about a second) and the call rejects
 * with `OcrTimeoutError`. This is a safety cap, not a budget: it is set far above an ordinary pass even on
 * a loaded machine (3 s, the earlier cap, was reached by ordinary passes when the machine was loaded
 * and made the reading depend on the load); the searches count their passes instead.
 */
export const DEFAULT_OCR_TIMEOUT_MS = 10_000;

export async function recognise(png: Buffer, options: OcrOptions & { timeoutMs?: number }): Promise<OcrResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_OCR_TIMEOUT_MS;
  const run = queue.then(async () => {
    const engine = await ensureWorker();
    // Crops carry no resolution; without one tesseract warns on every call and assumes 70 dpi.
    await engine.setParameters({
      tessedit_char_whitelist: options.whitelist,
      tessedit_pageseg_mode: MODES[options.mode],
      user_defined_dpi: '300',
      // The legacy engine prints statistics to stdout, which is the service's JSON log stream.
      debug_file: '/dev/null',
      // The legacy engine adapts its classifier to what it read before, in the same worker: the same MRZ
      // then read differently depending on the photos before it (a benchmark's order, a service thread's
      // history). Reads that must not depend on that turn it off.
      classify_enable_learning: options.adaptive === false ? '0' : '1',
      classify_enable_adaptive_matcher: options.adaptive === false ? '0' : '1',
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new OcrTimeoutError(timeoutMs)), timeoutMs);
    });
    try {
      const { data } = await Promise.race([engine.recognize(png, {}, { text: true, blocks: true }), timeout]);
      const lines: OcrLine[] = [];
      for (const block of data.blocks ?? []) {
        for (const paragraph of block.paragraphs) {
          for (const line of paragraph.lines) {
            lines.push({
              text: line.text.replace(/\n$/, ''),
              confidence: line.confidence,
              bbox: line.bbox,
              words: line.words.map((word) => ({
                text: word.text,
                confidence: word.confidence,
                bbox: word.bbox,
                symbols: word.symbols.map((symbol) => ({ text: symbol.text, confidence: symbol.confidence })),
              })),
            });
          }
        }
      }
      return { text: data.text, confidence: data.confidence, lines };
    } catch (error) {
      if (error instanceof OcrTimeoutError) {
        if (worker !== null) {
          const stuck = worker;
          worker = null;
          void stuck.then((engineToEnd) => engineToEnd.terminate()).catch(() => undefined);
        }
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  });
  queue = run.catch(() => undefined);
  return run;
}

/** Ends this thread's OCR worker (a CLI or a test does this before exiting; the next call starts a new one). */
export async function stopOcr(): Promise<void> {
  const current = worker;
  worker = null;
  if (current === null) return;
  try {
    await (await current).terminate();
  } catch {
    // A worker that never started has nothing to end.
  }
}

export const MRZ_WHITELIST = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<';
