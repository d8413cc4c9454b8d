import { MAX_STACKED_RUNS, RUN_MARGIN, STACK_GAP_PX, STACK_RUN_PX } from '../calibration/printed';
import { greyVariant, pngOfRaster, type GreyRaster, type PixelRegion } from '../image/raster';
import { OcrTimeoutError, recognise } from './ocr';
import { textFragments, type TextFragment } from './text-fragments';

/**
 * The printed labels of a card ("Apellido / Surname", "Fecha de vencimiento / Date of expiry", "NOMBRE/S:")
 * found where they are, so that each value is read where its label says it is rather than where one
 * specimen had it. The runs of text in the label area (`textFragments`) are stacked, each scaled to one
 * height, into one image that the engine reads in one pass: a few hundred milliseconds for a card's
 * twenty runs, where one pass per run would cost that per run and a pass over the card as it is (its
 * guilloche, seal and photo) took 4–11 s and read little. The same pass gives each value a first read.
 */
export interface LocatedText extends TextFragment {
  /** What the stacked pass read in it (letters, digits, `/`, `.`, `:` and `-`), and how confidently (0–100). */
  text: string;
  confidence: number;
  /** Its words, each with its extent across the raster (px). */
  words: LocatedWord[];
}

export interface LocatedWord {
  text: string;
  confidence: number;
  left: number;
  right: number;
}

const STACK_WHITELIST = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/.:- ';

/** The grey level between a crop's ink and its paper (Otsu's threshold over its histogram). */
export function otsuThreshold(data: Uint8Array): number {
  const histogram = new Float64Array(256);
  for (let index = 0; index < data.length; index += 1) histogram[data[index]!]! += 1;
  let total = 0;
  for (let value = 0; value < 256; value += 1) total += value * histogram[value]!;
  let belowCount = 0;
  let belowSum = 0;
  let best = -1;
  let threshold = 128;
  for (let value = 0; value < 256; value += 1) {
    belowCount += histogram[value]!;
    if (belowCount === 0) continue;
    const aboveCount = data.length - belowCount;
    if (aboveCount === 0) break;
    belowSum += value * histogram[value]!;
    const spread = belowCount * aboveCount * (belowSum / belowCount - (total - belowSum) / aboveCount) ** 2;
    if (spread > best) {
      best = spread;
      threshold = value + 1;
    }
  }
  return threshold;
}

/**
 * The grey level under which only a crop's darkest ink lies, when the crop holds three tones (Otsu's
 * method for three classes, the lower of its two thresholds): black print, a lighter overprint crossing
 * it (the 2012 card's seal over its dates, which on a dim photo keeps too little colour for the ink
 * level to lift it) and paper. Two tones only (no seal) give a threshold within the ink's own spread.
 */
export function darkestInkThreshold(data: Uint8Array): number {
  const histogram = new Float64Array(256);
  for (let index = 0; index < data.length; index += 1) histogram[data[index]!]! += 1;
  // Cumulative counts and sums, so each class's mean is a difference of two entries.
  const count = new Float64Array(257);
  const sum = new Float64Array(257);
  for (let value = 0; value < 256; value += 1) {
    count[value + 1] = count[value]! + histogram[value]!;
    sum[value + 1] = sum[value]! + value * histogram[value]!;
  }
  const spreadOf = (from: number, to: number) => {
    const n = count[to]! - count[from]!;
    if (n === 0) return 0;
    const s = sum[to]! - sum[from]!;
    return (s * s) / n;
  };
  let best = -1;
  let threshold = 128;
  // Classes [0, low), [low, high), [high, 256): the between-class spread is the sum of each class's
  // squared sum over its count (the overall mean's term is the same for every split).
  for (let low = 1; low < 255; low += 1) {
    for (let high = low + 1; high < 256; high += 1) {
      const spread = spreadOf(0, low) + spreadOf(low, high) + spreadOf(high, 256);
      if (spread > best) {
        best = spread;
        threshold = low;
      }
    }
  }
  return threshold;
}

/** A binarised crop and where it came from: its top-left corner in the raster and its scale. */
export interface BinarisedRun {
  crop: GreyRaster;
  left: number;
  top: number;
  scale: number;
}

export interface BinarisingOptions {
  /** Ink is at most this dark (or the crop's own threshold when that is lower). */
  inkMax?: number;
  /**
   * Only the crop's darkest tone is ink: under `darkestInkThreshold` times this share (1: that threshold
   * itself), not what Otsu's two classes give.
   */
  darkest?: number;
  /** Boxes of the raster whose ink is not text (the barcode beside a value): paper in the crop. */
  blank?: readonly PixelRegion[];
  /**
   * The margin above and below the run is paper: what stands there is the rows next to it (a label's
   * foot above a value, the seal's rim), which the engine reads into the line or instead of it (a dim
   * 2012 front's expiry crop read as nothing at all).
   */
  paperAround?: boolean;
}

/**
 * A run of text as the engine is shown it: cropped with a margin, scaled to `heightPx` for the run
 * itself, stretched, and made black on white at the crop's own threshold (labels print grey, values
 * black: one fixed threshold loses one or the other), or at `inkMax` when that is lower.
 */
export async function binarisedRun(
  raster: GreyRaster,
  run: PixelRegion,
  heightPx: number,
  options: BinarisingOptions = {},
): Promise<BinarisedRun> {
  const margin = Math.round(run.height * RUN_MARGIN);
  const left = Math.max(0, run.left - margin);
  const top = Math.max(0, run.top - margin);
  const right = Math.min(raster.width, run.left + run.width + margin);
  const bottom = Math.min(raster.height, run.top + run.height + margin);
  const scale = heightPx / Math.max(1, run.height);
  const region = {
    left: left / raster.width,
    top: top / raster.height,
    width: (right - left) / raster.width,
    height: (bottom - top) / raster.height,
  };
  const crop = await greyVariant(raster, { region, scale, normalise: true });
  const threshold = Math.min(
    options.inkMax ?? 255,
    options.darkest === undefined ? otsuThreshold(crop.data) : options.darkest * darkestInkThreshold(crop.data),
  );
  for (let index = 0; index < crop.data.length; index += 1) crop.data[index] = crop.data[index]! < threshold ? 0 : 255;
  const around =
    options.paperAround === true
      ? [
          { left, top, width: right - left, height: run.top - top },
          { left, top: run.top + run.height, width: right - left, height: bottom - run.top - run.height },
        ]
      : [];
  // What is not text (the barcode beside a value) is paper in the crop.
  for (const box of [...(options.blank ?? []), ...around]) {
    const x0 = Math.max(0, Math.floor((box.left - left) * scale));
    const x1 = Math.min(crop.width, Math.ceil((box.left + box.width - left) * scale));
    const y0 = Math.max(0, Math.floor((box.top - top) * scale));
    const y1 = Math.min(crop.height, Math.ceil((box.top + box.height - top) * scale));
    for (let y = y0; y < y1; y += 1) if (x1 > x0) crop.data.fill(255, y * crop.width + x0, y * crop.width + x1);
  }
  return { crop, left, top, scale };
}

/**
 * The runs of text inside `windows` (pixel boxes of `raster`), each with what one stacked pass read in
 * it; null when the engine gave up on the stack (its safety cap). `textPx` is the height of a label's
 * capitals, `maxHeightPx` the tallest a value runs; runs centred in `exclude` (the photo) are left out,
 * and the ink in `blank` (the barcode, paper in the crops too) and in `apart` is not joined to any.
 */
export async function readTextRuns(
  raster: GreyRaster,
  windows: readonly PixelRegion[],
  options: {
    textPx: number;
    maxHeightPx: number;
    exclude?: readonly PixelRegion[];
    blank?: readonly PixelRegion[];
    /** Boxes whose ink joins no run, left as they are in the crops read (the photo beside the data column). */
    apart?: readonly PixelRegion[];
    /** A run more than this many times as wide as tall is no line of the layout's print. */
    widestAspect?: number;
  },
): Promise<{ runs: LocatedText[]; passes: number } | null> {
  const inside = (run: TextFragment, box: PixelRegion) => {
    const cx = (run.left + run.right) / 2;
    const cy = (run.top + run.bottom) / 2;
    return cx >= box.left && cx < box.left + box.width && cy >= box.top && cy < box.top + box.height;
  };
  const found: TextFragment[] = [];
  for (const window of windows) {
    for (const run of textFragments(raster, window, {
      ...options,
      blank: [...(options.blank ?? []), ...(options.apart ?? [])],
    })) {
      // Two windows may overlap: a run is kept once.
      if (found.some((other) => other.left === run.left && other.top === run.top && other.right === run.right)) continue;
      if (options.exclude?.some((box) => inside(run, box)) === true) continue;
      found.push(run);
    }
  }
  const runs = found.sort((a, b) => a.top - b.top || a.left - b.left).slice(0, MAX_STACKED_RUNS);
  if (runs.length === 0) return { runs: [], passes: 0 };

  const crops = await Promise.all(
    runs.map((run) =>
      binarisedRun(
        raster,
        { left: run.left, top: run.top, width: run.right - run.left, height: run.bottom - run.top },
        STACK_RUN_PX,
        { blank: options.blank ?? [] },
      ),
    ),
  );
  const width = Math.max(...crops.map(({ crop }) => crop.width)) + 2 * STACK_GAP_PX;
  const height = crops.reduce((sum, { crop }) => sum + crop.height + STACK_GAP_PX, STACK_GAP_PX);
  const stack = Buffer.alloc(width * height, 255);
  const rows: { top: number; bottom: number }[] = [];
  let y = STACK_GAP_PX;
  for (const { crop } of crops) {
    for (let row = 0; row < crop.height; row += 1)
      crop.data.copy(stack, (y + row) * width + STACK_GAP_PX, row * crop.width, (row + 1) * crop.width);
    rows.push({ top: y, bottom: y + crop.height });
    y += crop.height + STACK_GAP_PX;
  }
  const ocr = await recognise(await pngOfRaster({ data: stack, width, height }), {
    whitelist: STACK_WHITELIST,
    mode: 'block',
    engine: 'lstm',
  }).catch((error: unknown) => {
    if (error instanceof OcrTimeoutError) return null;
    throw error;
  });
  if (ocr === null) return null;
  const words = runs.map((): LocatedWord[] => []);
  for (const line of ocr.lines) {
    for (const word of line.words) {
      const centre = (word.bbox.y0 + word.bbox.y1) / 2;
      const index = rows.findIndex((row) => centre >= row.top - STACK_GAP_PX / 2 && centre < row.bottom + STACK_GAP_PX / 2);
      const text = word.text.trim();
      if (index === -1 || text === '') continue;
      const { left, scale } = crops[index]!;
      words[index]!.push({
        text,
        confidence: word.confidence,
        left: left + (word.bbox.x0 - STACK_GAP_PX) / scale,
        right: left + (word.bbox.x1 - STACK_GAP_PX) / scale,
      });
    }
  }
  return {
    runs: runs.map((run, index) => {
      const read = words[index]!;
      return {
        ...run,
        text: read.map((word) => word.text).join(' '),
        // A run is as confident as its least confident word: a label read half right is not a label.
        confidence: read.length === 0 ? 0 : Math.min(...read.map((word) => word.confidence)),
        words: read,
      };
    }),
    passes: 1,
  };
}

/** Upper case, accents dropped, only letters left: how a label's words are compared. */
function lettersOf(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toUpperCase()
    .replace(/[^A-Z]/g, '');
}

/**
 * The fewest edits turning `word` into some stretch of `text` (both letters only): a label's word found
 * inside a run whose spaces and slashes the engine may have dropped or misread ("Fechade nacimiento").
 */
function editsWithin(word: string, text: string): number {
  let previous = new Array<number>(text.length + 1).fill(0);
  for (let i = 1; i <= word.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= text.length; j += 1) {
      const cost = word[i - 1] === text[j - 1] ? 0 : 1;
      row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost));
    }
    previous = row;
  }
  return Math.min(...previous);
}

/**
 * Whether a run reads as a label with one of `words` (each upper case, without accents): found inside
 * the run with at most one edit per three letters. Labels print small and grey, and the engine misreads
 * them (`Sumame`, `Apeiido`, `nacwrwento` on the corpus's passport pages), where a label's words are long
 * and no other text of the card comes within that many edits of them; words of three letters (`SEX`)
 * must be read exactly.
 */
export function readsAsLabel(text: string, words: readonly string[]): boolean {
  const letters = lettersOf(text);
  return words.some((word) => editsWithin(word, letters) <= (word.length <= 3 ? 0 : Math.floor(word.length / 3)));
}

/** How far a run's letters are from a label's words: fewest edits per letter of the best word (0 = exact). */
export function labelDistance(text: string, words: readonly string[]): number {
  const letters = lettersOf(text);
  return Math.min(...words.map((word) => editsWithin(word, letters) / word.length));
}
