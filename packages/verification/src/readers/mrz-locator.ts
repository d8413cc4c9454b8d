import * as mrzCalibration from '../calibration/mrz';
import type { GreyRaster } from '../image/raster';
import { inkMask } from './ink';

/**
 * Finds where an MRZ may be in a band of the page before any OCR runs: OCR of a band full of photo,
 * seal and barcode takes 1.5–2 s with the legacy engine, while a tight crop of the zone takes 0.1–0.3 s,
 * and a side without an MRZ (a 2012 DNI front) should cost nothing.
 *
 * An MRZ is 2 or 3 lines of monospaced characters that run, without gaps, across most of the page's
 * width ('<' fillers are ink too). Per pixel row we count dark/light transitions; rows with many of them
 * form text lines; a line whose ink runs unbroken across at least half the width (printed labels and
 * values leave wide gaps; a PDF417 covers a third) and whose height is that of a text line (a barcode is far taller)
 * is MRZ-like. Neighbouring MRZ-like lines form a block.
 *
 * Ink is what is darker than its surroundings (`inkMask`): a threshold below the band's mean made the
 * page's own text vanish when a dark table filled the rest of the band, and counted the table as ink
 * when it did not.
 */
export interface TextBlock {
  top: number;
  bottom: number;
  left: number;
  right: number;
  lines: number;
}

// Copied into module constants: compiled to CommonJS, each use of an imported constant is a property
// read, and the loops below run per pixel.
const { MRZ_COLUMN_BINS: COLUMN_BINS, MRZ_LOCATOR_INK_RADIUS_SHARE: INK_RADIUS_SHARE } = mrzCalibration;

export function locateMrzBlocks(band: GreyRaster): TextBlock[] {
  const { width, height } = band;
  const ink = inkMask(band, { radius: Math.max(3, Math.round(width * INK_RADIUS_SHARE)) });

  // Per row: transitions, and which column bins hold ink.
  const transitions = new Int32Array(height);
  const binsPerRow: Uint8Array[] = [];
  for (let y = 0; y < height; y += 1) {
    const bins = new Uint8Array(COLUMN_BINS);
    let previous = false;
    let count = 0;
    const row = y * width;
    for (let x = 0; x < width; x += 1) {
      const isDark = ink[row + x] === 1;
      if (isDark) bins[Math.min(COLUMN_BINS - 1, Math.floor((x * COLUMN_BINS) / width))] = 1;
      if (isDark !== previous) count += 1;
      previous = isDark;
    }
    transitions[y] = count;
    binsPerRow.push(bins);
  }

  // A text row of an MRZ across ≥ 50% of the width has at least ~1.5 transitions per character pitch.
  const minTransitions = Math.max(12, Math.round(width * 0.03));
  const lines: { top: number; bottom: number }[] = [];
  let start = -1;
  let gap = 0;
  for (let y = 0; y <= height; y += 1) {
    const texty = y < height && (transitions[y] ?? 0) >= minTransitions;
    if (texty) {
      if (start === -1) start = y;
      gap = 0;
    } else if (start !== -1) {
      gap += 1;
      // Allow a row or two without ink inside a line (between a character's strokes).
      if (gap > 2 || y === height) {
        lines.push({ top: start, bottom: y - gap });
        start = -1;
        gap = 0;
      }
    }
  }

  const mrzLines = lines
    .map((line) => {
      const covered = new Uint8Array(COLUMN_BINS);
      for (let y = line.top; y <= line.bottom; y += 1) {
        const bins = binsPerRow[y];
        if (bins === undefined) continue;
        for (let bin = 0; bin < COLUMN_BINS; bin += 1) if (bins[bin] === 1) covered[bin] = 1;
      }
      // The longest run of inked column bins, bridging one empty bin (a wide '<' or a space in a name):
      // an MRZ line is one such run; labels and values, or a card's edges, are several.
      let first = -1;
      let last = -1;
      let runStart = -1;
      let empties = 0;
      for (let bin = 0; bin <= COLUMN_BINS; bin += 1) {
        if (bin < COLUMN_BINS && covered[bin] === 1) {
          if (runStart === -1) runStart = bin;
          empties = 0;
          continue;
        }
        empties += 1;
        if (runStart !== -1 && (empties > 1 || bin === COLUMN_BINS)) {
          const runEnd = bin - empties;
          if (runEnd - runStart > last - first) {
            first = runStart;
            last = runEnd;
          }
          runStart = -1;
        }
      }
      // Ink share inside the run: OCR-B text is about a fifth ink; a barcode or a photo far more.
      let inked = 0;
      const left = Math.floor((Math.max(0, first) * width) / COLUMN_BINS);
      const right = Math.ceil(((last + 1) * width) / COLUMN_BINS);
      for (let y = line.top; y <= line.bottom; y += 1) {
        for (let x = left; x < right; x += 1) inked += ink[y * width + x] ?? 0;
      }
      const share = inked / Math.max(1, (right - left) * (line.bottom - line.top + 1));
      return { ...line, first, last, ink: share };
    })
    .filter((line) => {
      const lineHeight = line.bottom - line.top + 1;
      return (
        line.first !== -1 &&
        line.ink <= 0.45 &&
        lineHeight >= width * 0.008 &&
        lineHeight <= width * 0.045 &&
        line.last - line.first + 1 >= COLUMN_BINS * 0.5
      );
    });

  // Neighbouring MRZ-like lines (gap below two line heights) form a block.
  const blocks: TextBlock[] = [];
  for (const line of mrzLines) {
    const lineHeight = line.bottom - line.top + 1;
    const previous = blocks[blocks.length - 1];
    const left = Math.floor((line.first * width) / COLUMN_BINS);
    const right = Math.ceil(((line.last + 1) * width) / COLUMN_BINS);
    const previousHeight = previous === undefined ? 0 : (previous.bottom - previous.top + 1) / previous.lines;
    // MRZ lines are of one size, one to two line heights apart.
    const sameSize = previousHeight > 0 && lineHeight / previousHeight < 1.7 && previousHeight / lineHeight < 1.7;
    if (previous !== undefined && sameSize && line.top - previous.bottom <= lineHeight * 2) {
      previous.bottom = line.bottom;
      previous.left = Math.min(previous.left, left);
      previous.right = Math.max(previous.right, right);
      previous.lines += 1;
    } else {
      blocks.push({ top: line.top, bottom: line.bottom, left, right, lines: 1 });
    }
  }
  return blocks;
}
