import path from 'node:path';
import { createWorker, OEM, PSM, type Worker } from 'tesseract.js';
import { DEFAULT_OCR_TIMEOUT_MS } from '../calibration/budgets';
import { legacyModelFolder } from './legacy-model';

/**
 * One tesseract.js worker per engine and thread, created on first use and reused: its model (the
 * English traineddata: `@tesseract.js-data/eng`'s `4.0.0` model for the legacy engine, without the parts it never
 * reads (legacy-model.ts), and `4.0.0_best_int` for the LSTM one) comes from node_modules, is never downloaded,
 * and tesseract.js writes no cache file of its own (`cacheMethod: 'none'`).
 *
 * The legacy engine (`OEM.TESSERACT_ONLY`) with a whitelist reads OCR-B MRZ lines well where the LSTM
 * engine garbles runs of '<' (docs/design.md "Toolchain facts"). The same engine reads the DNI's printed fields in small
 * crops; it reads upper-case Latin letters without accents, which is how names are compared anyway.
 *
 * The LSTM engine reads only an MRZ's names line, a second time, when the legacy engine read them to be
 * given back (names-check.ts): another classifier does not repeat the legacy engine's confusions.
 */
export type OcrEngine = 'legacy' | 'lstm';

const workers: Record<OcrEngine, Promise<Worker> | null> = { legacy: null, lstm: null };
// A worker runs one job at a time; parameters and recognition of one call must not interleave with
// another's. The two engines are two threads, and a call to one does not wait for the other's: the LSTM
// engine judges an MRZ's names while the legacy one reads the page's printed fields (`searchMrzZone`).
const queues: Record<OcrEngine, Promise<unknown>> = { legacy: Promise.resolve(), lstm: Promise.resolve() };

function languagePath(engine: OcrEngine): string {
  // The package's main module exports the folder of its full (legacy + LSTM) model; beside it, the
  // LSTM-only integer model, which costs a thread about 94 MiB where the full one costs 191 MiB.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const data = require('@tesseract.js-data/eng') as { langPath: string };
  return engine === 'legacy' ? legacyModelFolder(data.langPath) : path.join(path.dirname(data.langPath), '4.0.0_best_int');
}

/** Where tesseract.js writes the model in the worker's file system (its `dataPath` left unset). */
const MODEL_FILE = './eng.traineddata';

function ensureWorker(engine: OcrEngine): Promise<Worker> {
  const existing = workers[engine];
  if (existing !== null) return existing;
  const legacy = engine === 'legacy';
  const created = createWorker(
    'eng',
    legacy ? OEM.TESSERACT_ONLY : OEM.LSTM_ONLY,
    { langPath: languagePath(engine), cacheMethod: 'none', gzip: !legacy, legacyCore: legacy, legacyLang: legacy },
    // Read only when the engine starts. English word bigrams are no help on names and codes (legacy-model.ts).
    legacy ? { load_bigram_dawg: '0' } : {},
  ).then(async (worker) => {
    // tesseract.js leaves the unpacked model in the worker's in-memory file system (JavaScript memory of the
    // worker's thread: 2 MiB for the legacy model, 5 MiB for the LSTM one) once the engine has read it into
    // its own: only a re-initialisation, which this module never asks for, would read it again. Memory only:
    // a failure to remove it leaves the engine as it was (bench/documents/reading-memory.mjs shows it).
    await worker.FS('unlink', [MODEL_FILE]).catch(() => undefined);
    return worker;
  });
  workers[engine] = created;
  // A failed start must not stay cached: the next call tries again.
  created.catch(() => {
    if (workers[engine] === created) workers[engine] = null;
  });
  return created;
}

export interface OcrBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface OcrSymbol {
  text: string;
  confidence: number;
  bbox: OcrBox;
}

export interface OcrLine {
  text: string;
  /** Tesseract's confidence, 0–100. */
  confidence: number;
  bbox: OcrBox;
  words: { text: string; confidence: number; bbox: OcrBox; symbols: OcrSymbol[] }[];
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
  /** The legacy engine unless said otherwise. */
  engine?: OcrEngine;
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
 * One OCR pass on the engine's queue. A job cannot be cancelled, so past `timeoutMs` (a safety cap,
 * `DEFAULT_OCR_TIMEOUT_MS` unless given) the worker is ended (the next call starts a new one, about a
 * second) and the call rejects with `OcrTimeoutError`.
 */
export async function recognise(png: Buffer, options: OcrOptions & { timeoutMs?: number }): Promise<OcrResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_OCR_TIMEOUT_MS;
  const engineName = options.engine ?? 'legacy';
  const run = queues[engineName].then(async () => {
    const engine = await ensureWorker(engineName);
    // Crops carry no resolution; without one tesseract warns on every call and assumes 70 dpi.
    await engine.setParameters({
      tessedit_char_whitelist: options.whitelist,
      tessedit_pageseg_mode: MODES[options.mode],
      user_defined_dpi: '300',
      // The legacy engine prints statistics to stdout, which is the service's JSON log stream.
      debug_file: '/dev/null',
      // The legacy engine adapts its classifier to what it read before, in the same worker: the same photo
      // then read differently depending on the photos before it (a service thread's history, a benchmark's
      // order). Turned off for every pass: with it off for the MRZ passes alone, what the printed-field
      // passes taught it still changed MRZ reads (seed 42's s42-000046 front read right alone and with a
      // stray A after 30 other documents), so a reading depends on its image alone.
      ...(engineName === 'legacy' ? { classify_enable_learning: '0', classify_enable_adaptive_matcher: '0' } : {}),
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
                symbols: word.symbols.map((symbol) => ({ text: symbol.text, confidence: symbol.confidence, bbox: symbol.bbox })),
              })),
            });
          }
        }
      }
      return { text: data.text, confidence: data.confidence, lines };
    } catch (error) {
      if (error instanceof OcrTimeoutError) {
        const stuck = workers[engineName];
        if (stuck !== null) {
          workers[engineName] = null;
          void stuck.then((engineToEnd) => engineToEnd.terminate()).catch(() => undefined);
        }
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  });
  queues[engineName] = run.catch(() => undefined);
  return run;
}

/** Starts this thread's two OCR workers ahead of the first read (engines.ts). */
export async function startOcr(): Promise<void> {
  await Promise.all([ensureWorker('legacy'), ensureWorker('lstm')]);
}

/** Ends this thread's OCR workers (a CLI or a test does this before exiting; the next call starts new ones). */
export async function stopOcr(): Promise<void> {
  const current = Object.values(workers);
  workers.legacy = null;
  workers.lstm = null;
  for (const started of current) {
    if (started === null) continue;
    try {
      await (await started).terminate();
    } catch {
      // A worker that never started has nothing to end.
    }
  }
}

export const MRZ_WHITELIST = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<';
