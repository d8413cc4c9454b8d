import * as mrzCalibration from '../calibration/mrz';
import type { GreyRaster } from '../image/raster';
import type { OcrLine } from './ocr';

/**
 * How much each glyph of a zone's line looks like the line's own filler '<', from the pixels: the
 * normalised correlation of the glyph's cell with the mean of the line's other filler cells.
 *
 * The names' second read (names-check.ts) needs it where the two engines part on a filler: the LSTM
 * engine reads a '<' after a word as S, D or E too (seed 99: `BRUNOD<KK`, `MARIASVICTORIA`), which the
 * text alone cannot tell from a word the legacy engine cut short (`CARLO<` for `CARLOS`). The glyph can:
 * an S, D or E cell does not look like the chevrons of the same line, whoever read what.
 *
 * Cells are laid out from the legacy engine's symbol boxes (OCR-B is monospaced): centred on each
 * symbol, one pitch wide, one letter high from the line's top edge (fitted across the line, so a line
 * photographed at a slant keeps every cell on its glyph).
 */

// The cell's sampling grid, the template's least fillers and the pitch's tolerance are in
// calibration/mrz.ts. Copied into module constants: compiled to CommonJS, each use of an imported constant
// is a property read, and the sampling loops run per pixel.
const {
  FILLER_CELL_COLUMNS: CELL_COLUMNS,
  FILLER_CELL_ROWS: CELL_ROWS,
  MIN_TEMPLATE_FILLERS,
  MAX_PITCH_DEVIATION,
} = mrzCalibration;

export interface FillerLikeness {
  /** The line as the legacy engine read it, one character per symbol (no spaces). */
  text: string;
  /** Per symbol of `text`, its cell's correlation with the other fillers' mean cell (−1–1). */
  likeness: number[];
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Ink per grid square of the cell, mean-removed and scaled to unit length (zero when flat). */
function cellVector(raster: GreyRaster, centreX: number, top: number, pitch: number, height: number): Float64Array {
  const vector = new Float64Array(CELL_COLUMNS * CELL_ROWS);
  const left = centreX - pitch / 2;
  for (let row = 0; row < CELL_ROWS; row++) {
    const y0 = Math.max(0, Math.floor(top + (row * height) / CELL_ROWS));
    const y1 = Math.min(raster.height, Math.ceil(top + ((row + 1) * height) / CELL_ROWS));
    for (let column = 0; column < CELL_COLUMNS; column++) {
      const x0 = Math.max(0, Math.floor(left + (column * pitch) / CELL_COLUMNS));
      const x1 = Math.min(raster.width, Math.ceil(left + ((column + 1) * pitch) / CELL_COLUMNS));
      let sum = 0;
      let count = 0;
      for (let y = y0; y < y1; y++) {
        for (let x = x0; x < x1; x++) {
          sum += 255 - (raster.data[y * raster.width + x] ?? 255);
          count += 1;
        }
      }
      vector[row * CELL_COLUMNS + column] = count === 0 ? 0 : sum / count;
    }
  }
  let mean = 0;
  for (const value of vector) mean += value;
  mean /= vector.length;
  let norm = 0;
  for (let i = 0; i < vector.length; i++) {
    vector[i] = (vector[i] ?? 0) - mean;
    norm += (vector[i] ?? 0) ** 2;
  }
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] ?? 0) / norm;
  return vector;
}

function correlation(vector: Float64Array, template: Float64Array): number {
  let dot = 0;
  let norm = 0;
  for (let i = 0; i < vector.length; i++) {
    dot += (vector[i] ?? 0) * (template[i] ?? 0);
    norm += (template[i] ?? 0) ** 2;
  }
  return norm === 0 ? 0 : dot / Math.sqrt(norm);
}

/** Null when the line has too few symbols or fillers to lay out cells and a template. */
export function fillerLikeness(raster: GreyRaster, line: OcrLine): FillerLikeness | null {
  const symbols = line.words.flatMap((word) => word.symbols);
  const text = symbols.map((symbol) => symbol.text).join('');
  const fillers = symbols.flatMap((symbol, index) => (symbol.text === '<' ? [index] : []));
  const letterHeights = symbols.filter((symbol) => symbol.text !== '<').map((symbol) => symbol.bbox.y1 - symbol.bbox.y0);
  if (symbols.length < 2 || text.length !== symbols.length || fillers.length < MIN_TEMPLATE_FILLERS + 1) return null;
  if (letterHeights.length === 0) return null;

  const centres = symbols.map((symbol) => (symbol.bbox.x0 + symbol.bbox.x1) / 2);
  const pitch = median(centres.slice(1).map((centre, index) => centre - (centres[index] ?? centre)));
  const height = median(letterHeights);
  if (pitch <= 0 || height <= 0) return null;
  // The line's top edge as a straight line through the symbols' tops (least squares): a filler's top is
  // a letter's, its bottom is not.
  const tops = symbols.map((symbol) => symbol.bbox.y0);
  const meanX = centres.reduce((sum, x) => sum + x, 0) / centres.length;
  const meanTop = tops.reduce((sum, y) => sum + y, 0) / tops.length;
  let covariance = 0;
  let variance = 0;
  centres.forEach((x, index) => {
    covariance += (x - meanX) * ((tops[index] ?? meanTop) - meanTop);
    variance += (x - meanX) ** 2;
  });
  const slope = variance === 0 ? 0 : covariance / variance;
  // A tenth of a letter above and below: the glyph whole, little of the lines around it.
  const cells = centres.map((x) => cellVector(raster, x, meanTop + slope * (x - meanX) - height / 10, pitch, height * 1.2));

  const sum = new Float64Array(CELL_COLUMNS * CELL_ROWS);
  for (const index of fillers) {
    const cell = cells[index];
    if (cell !== undefined) for (let i = 0; i < sum.length; i++) sum[i] = (sum[i] ?? 0) + (cell[i] ?? 0);
  }
  // A symbol not one pitch from its neighbours is no glyph of the monospaced line where it sits (a glyph
  // the engine dropped or split): it is not vouched for.
  const offPitch = (index: number) =>
    [index - 1, index + 1].some((other) => {
      const neighbour = centres[other];
      return (
        neighbour !== undefined && Math.abs(Math.abs(neighbour - (centres[index] ?? 0)) - pitch) > pitch * MAX_PITCH_DEVIATION
      );
    });
  const likeness = cells.map((cell, index) => {
    if (offPitch(index)) return -1;
    if (symbols[index]?.text !== '<') return correlation(cell, sum);
    // A filler against the others only: its own cell in the template would vouch for itself.
    const others = new Float64Array(sum.length);
    for (let i = 0; i < sum.length; i++) others[i] = (sum[i] ?? 0) - (cell[i] ?? 0);
    return correlation(cell, others);
  });
  return { text, likeness };
}
