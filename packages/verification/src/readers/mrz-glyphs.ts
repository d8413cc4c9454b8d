import { GLYPH_CONTENDERS, MIN_LINE_SCORE, TRACKING_SCORE } from '../calibration/mrz';
import type { GreyRaster } from '../image/raster';
import type { OcrBox, OcrLine, OcrResult, OcrSymbol } from './ocr';
import { fitLine, type MrzLineExtent } from './rectify';
import { OCR_B_ASPECT, OCR_B_BITMAPS, OCR_B_CHARACTERS, OCR_B_COLUMNS, OCR_B_ROWS } from './ocr-b-glyphs';

/**
 * Reads a straightened MRZ band (`rectify.ts`) by matching each character cell against OCR-B's own
 * glyphs, blurred as the band is blurred.
 *
 * ICAO 9303 prints every MRZ in one typeface (OCR-B, size 1) at one pitch, so a zone is a grid of cells
 * whose every possible content is known. The legacy OCR engine classifies shapes it segments itself, and
 * a photo blurred by 3 px or more (σ) merges strokes and neighbours until it reads `P<OIA6ARCIA` or drops
 * the line's first characters; blurring the 37 glyphs by the band's own measured blur and correlating
 * them with each cell is the matched filter of that blur, which still tells them apart. Nothing here
 * decides a character by the check digits: the reading is given to the same fitting and checks as the
 * OCR's, so a zone printed with a wrong check digit stays invalid.
 */
export type GlyphLineLayout = MrzLineExtent;

interface Template {
  character: string;
  /** Ink (darkness) over the cell, mean removed and scaled to unit length. */
  weights: Float64Array;
}

interface CellMatch {
  character: string;
  score: number;
  left: number;
  top: number;
}

// Lanczos resampling of the 200 px rendering leaves glyph edges about this wide (σ, px of the bitmap's
// size); a sharp photo's text measures 0.8–1.1 px, so only blur beyond the bitmaps' own is added.
const TEMPLATE_OWN_SIGMA = 0.8;
// OCR-B's glyphs stand in the middle of their advance, their ink from about 0.15 of it on each side
// (measured on the rendered font): the first character's ink begins that far into its cell.
const SIDE_BEARING = 0.15;

let glyphBitmaps: { character: string; ink: Uint8Array }[] | null = null;

function bitmaps(): { character: string; ink: Uint8Array }[] {
  if (glyphBitmaps !== null) return glyphBitmaps;
  const bytes = Buffer.from(OCR_B_BITMAPS, 'base64');
  const size = OCR_B_COLUMNS * OCR_B_ROWS;
  glyphBitmaps = [...OCR_B_CHARACTERS].map((character, index) => ({
    character,
    ink: new Uint8Array(bytes.buffer, bytes.byteOffset + index * size, size),
  }));
  return glyphBitmaps;
}

function gaussianKernel(sigma: number): Float64Array {
  const radius = Math.max(1, Math.ceil(sigma * 3));
  const kernel = new Float64Array(radius * 2 + 1);
  let sum = 0;
  for (let offset = -radius; offset <= radius; offset += 1) {
    const value = Math.exp(-(offset * offset) / (2 * sigma * sigma));
    kernel[offset + radius] = value;
    sum += value;
  }
  return kernel.map((value) => value / sum);
}

/** One pass of a 1-D kernel along rows (`step` 1) or columns (`step` width), zero (no ink) outside the image. */
function convolved(
  values: Float64Array,
  width: number,
  height: number,
  kernel: Float64Array,
  along: 'rows' | 'columns',
): Float64Array {
  const radius = (kernel.length - 1) / 2;
  const out = new Float64Array(values.length);
  const [step, extent] = along === 'rows' ? [1, width] : [width, height];
  for (let y = 0; y < height; y += 1)
    for (let x = 0; x < width; x += 1) {
      const position = along === 'rows' ? x : y;
      let sum = 0;
      for (let k = -radius; k <= radius; k += 1) {
        if (position + k < 0 || position + k >= extent) continue;
        sum += (values[y * width + x + k * step] ?? 0) * (kernel[k + radius] ?? 0);
      }
      out[y * width + x] = sum;
    }
  return out;
}

/** Separable Gaussian blur of a float image, zero (no ink) outside it. */
function blurred(values: Float64Array, width: number, height: number, sigma: number): Float64Array {
  if (sigma < 0.3) return values;
  const kernel = gaussianKernel(sigma);
  return convolved(convolved(values, width, height, kernel, 'rows'), width, height, kernel, 'columns');
}

/**
 * The glyphs at a cell's size in the band, blurred by `sigma` (px of the band). Each is drawn in a canvas
 * a blur's reach wider than the cell so that its ink spreads as the photo's does, then cut to the cell.
 */
function templatesAt(cellWidth: number, cellHeight: number, sigma: number): Template[] {
  const extra = Math.max(0, Math.sqrt(Math.max(0, sigma * sigma - TEMPLATE_OWN_SIGMA * TEMPLATE_OWN_SIGMA)));
  const pad = Math.ceil(extra * 3);
  const canvasWidth = cellWidth + 2 * pad;
  const canvasHeight = cellHeight + 2 * pad;
  return bitmaps().map(({ character, ink }) => {
    const canvas = new Float64Array(canvasWidth * canvasHeight);
    for (let y = 0; y < cellHeight; y += 1) {
      // Bilinear sampling of the bitmap at the cell's pixel centres.
      const sy = Math.min(OCR_B_ROWS - 1, Math.max(0, ((y + 0.5) * OCR_B_ROWS) / cellHeight - 0.5));
      const y0 = Math.floor(sy);
      const y1 = Math.min(OCR_B_ROWS - 1, y0 + 1);
      const fy = sy - y0;
      for (let x = 0; x < cellWidth; x += 1) {
        const sx = Math.min(OCR_B_COLUMNS - 1, Math.max(0, ((x + 0.5) * OCR_B_COLUMNS) / cellWidth - 0.5));
        const x0 = Math.floor(sx);
        const x1 = Math.min(OCR_B_COLUMNS - 1, x0 + 1);
        const fx = sx - x0;
        const at = (xx: number, yy: number) => ink[yy * OCR_B_COLUMNS + xx] ?? 0;
        const value = (at(x0, y0) * (1 - fx) + at(x1, y0) * fx) * (1 - fy) + (at(x0, y1) * (1 - fx) + at(x1, y1) * fx) * fy;
        canvas[(y + pad) * canvasWidth + x + pad] = value;
      }
    }
    const spread = blurred(canvas, canvasWidth, canvasHeight, extra);
    const weights = new Float64Array(cellWidth * cellHeight);
    let mean = 0;
    for (let y = 0; y < cellHeight; y += 1)
      for (let x = 0; x < cellWidth; x += 1) {
        const value = spread[(y + pad) * canvasWidth + x + pad] ?? 0;
        weights[y * cellWidth + x] = value;
        mean += value;
      }
    mean /= weights.length;
    let norm = 0;
    for (let index = 0; index < weights.length; index += 1) {
      const centred = (weights[index] ?? 0) - mean;
      weights[index] = centred;
      norm += centred * centred;
    }
    norm = Math.sqrt(norm) || 1;
    for (let index = 0; index < weights.length; index += 1) weights[index] = (weights[index] ?? 0) / norm;
    return { character, weights };
  });
}

/** Darkness (255 − grey) of the band, and its integral images for any window's mean and spread. */
class InkField {
  readonly ink: Float64Array;
  private readonly sum: Float64Array;
  private readonly squares: Float64Array;

  constructor(readonly raster: GreyRaster) {
    const { width, height, data } = raster;
    this.ink = new Float64Array(width * height);
    this.sum = new Float64Array((width + 1) * (height + 1));
    this.squares = new Float64Array((width + 1) * (height + 1));
    for (let y = 0; y < height; y += 1) {
      let rowSum = 0;
      let rowSquares = 0;
      for (let x = 0; x < width; x += 1) {
        const value = 255 - (data[y * width + x] ?? 255);
        this.ink[y * width + x] = value;
        rowSum += value;
        rowSquares += value * value;
        const at = (y + 1) * (width + 1) + x + 1;
        this.sum[at] = (this.sum[at - width - 1] ?? 0) + rowSum;
        this.squares[at] = (this.squares[at - width - 1] ?? 0) + rowSquares;
      }
    }
  }

  /** Normalised correlation of every template with the window at (left, top); null off the band. */
  scores(templates: readonly Template[], left: number, top: number, cellWidth: number, cellHeight: number): Float64Array | null {
    const { width, height } = this.raster;
    if (left < 0 || top < 0 || left + cellWidth > width || top + cellHeight > height) return null;
    const stride = width + 1;
    const box = (table: Float64Array) =>
      (table[(top + cellHeight) * stride + left + cellWidth] ?? 0) -
      (table[top * stride + left + cellWidth] ?? 0) -
      (table[(top + cellHeight) * stride + left] ?? 0) +
      (table[top * stride + left] ?? 0);
    const area = cellWidth * cellHeight;
    const sum = box(this.sum);
    const spread = Math.sqrt(Math.max(0, box(this.squares) - (sum * sum) / area));
    const result = new Float64Array(templates.length);
    // A blank cell (paper only) matches nothing.
    if (spread < 1e-6) return result;
    // The hottest loop of the glyph reads (thousands of windows a zone, each against up to 37 glyphs).
    const ink = this.ink;
    for (let index = 0; index < templates.length; index += 1) {
      const weights = templates[index]?.weights;
      if (weights === undefined) continue;
      let dot = 0;
      for (let y = 0; y < cellHeight; y += 1) {
        const row = (top + y) * width + left;
        const weightRow = y * cellWidth;
        for (let x = 0; x < cellWidth; x += 1) dot += weights[weightRow + x]! * ink[row + x]!;
      }
      // The weights sum to zero, so the dot product with the raw window equals that with the centred one.
      result[index] = dot / spread;
    }
    return result;
  }
}

function bestOf(scores: Float64Array, templates: readonly Template[]): { character: string; score: number } {
  let best = -Infinity;
  let character = '<';
  for (let index = 0; index < scores.length; index += 1) {
    const score = scores[index] ?? -Infinity;
    if (score > best) {
      best = score;
      character = templates[index]?.character ?? '<';
    }
  }
  return { character, score: best };
}

/** The best match among `templates` of a cell near (left, top), moved by up to `reachX`/`reachY` pixels. */
function matchCell(
  field: InkField,
  templates: readonly Template[],
  left: number,
  top: number,
  cell: { width: number; height: number },
  reachX: number,
  reachY: number,
  stepY = 1,
): CellMatch | null {
  let best: CellMatch | null = null;
  for (let dy = -reachY; dy <= reachY; dy += stepY)
    for (let dx = -reachX; dx <= reachX; dx += 1) {
      const x = Math.round(left + dx);
      const y = Math.round(top + dy);
      const scores = field.scores(templates, x, y, cell.width, cell.height);
      if (scores === null) continue;
      const match = bestOf(scores, templates);
      if (best === null || match.score > best.score) best = { ...match, left: x, top: y };
    }
  return best;
}

/**
 * A cell placed: every glyph matched where the grid puts it, the best few followed within `reachX`
 * pixels across and three down, and every glyph matched again where the best of them stands.
 */
function placeCell(
  field: InkField,
  templates: readonly Template[],
  left: number,
  top: number,
  cell: { width: number; height: number },
  reachX = 2,
): CellMatch | null {
  const x = Math.round(left);
  const y = Math.round(top);
  const first = field.scores(templates, x, y, cell.width, cell.height);
  if (first === null) return matchCell(field, templates, left, top, cell, reachX, 3);
  const contenders = templates
    .map((template, index) => ({ template, score: first[index] ?? -Infinity }))
    .sort((a, b) => b.score - a.score)
    .slice(0, GLYPH_CONTENDERS)
    .map(({ template }) => template);
  const placed = matchCell(field, contenders, left, top, cell, reachX, 3);
  if (placed === null) return null;
  const scores = field.scores(templates, placed.left, placed.top, cell.width, cell.height);
  return scores === null ? placed : { ...bestOf(scores, templates), left: placed.left, top: placed.top };
}

interface LineGrid {
  start: number;
  pitch: number;
  /** A cell's top edge along the line: top = intercept + slope · x. */
  intercept: number;
  slope: number;
  /** The mean best score of the sampled cells. */
  total: number;
}

/** The weighted least-squares line through the points; a level one through their mean where x does not spread. */
function fitTops(points: readonly { x: number; y: number; w: number }[]): { intercept: number; slope: number } {
  const weight = points.reduce((sum, point) => sum + point.w, 0);
  const mean = weight > 0 ? points.reduce((sum, point) => sum + point.w * point.y, 0) / weight : (points[0]?.y ?? 0);
  return fitLine(points) ?? { intercept: mean, slope: 0 };
}

/**
 * Where a line's `length` cells stand: the first cell's left edge and the pitch, found by trying pitches
 * around the one the inked extent gives and offsets of a tenth of a cell, scored on a dozen cells spread
 * along the line; then the cells' top edge fitted through where those sampled cells matched best (a
 * line the band shows at a slight slant keeps every cell on its glyph). `reachShare` is how far (share of
 * a cell's height) a sampled cell may lie above or below the line's measured centre.
 */
function lineGrid(
  field: InkField,
  templates: readonly Template[],
  cell: { width: number; height: number },
  layout: GlyphLineLayout,
  length: number,
  reachShare: number,
): LineGrid | null {
  const nominalPitch = (layout.right - layout.left) / (length - 2 * SIDE_BEARING);
  const top = layout.centreY - cell.height / 2;
  const sample = [...new Set(Array.from({ length: 12 }, (_, index) => Math.round((index * (length - 1)) / 11)))];
  const stepY = Math.max(1, Math.ceil(cell.height * 0.1));
  const reachY = Math.max(stepY, Math.ceil((cell.height * reachShare) / stepY) * stepY);
  let grid: (LineGrid & { tops: { x: number; y: number; w: number }[] }) | null = null;
  for (let factor = 0.98; factor <= 1.0201; factor += 0.01) {
    const pitch = nominalPitch * factor;
    for (let shift = -0.2; shift <= 0.2001; shift += 0.1) {
      const start = layout.left - SIDE_BEARING * pitch + shift * pitch;
      let total = 0;
      const tops: { x: number; y: number; w: number }[] = [];
      for (const index of sample) {
        const left = start + index * pitch;
        const match = matchCell(field, templates, left, top, cell, 0, reachY, stepY);
        total += match?.score ?? 0;
        if (match !== null) tops.push({ x: left, y: match.top, w: Math.max(0, match.score) });
      }
      const mean = total / sample.length;
      if (grid === null || mean > grid.total) grid = { start, pitch, intercept: top, slope: 0, total: mean, tops };
    }
  }
  if (grid === null) return null;
  const { tops, ...found } = grid;
  const placed = reachY > stepY ? { ...found, ...fitTops(tops) } : found;
  // The pitch tried in steps of 1% leaves the far end of a 44-cell line up to a third of a cell off: the
  // sampled cells are matched again, free to move a quarter of a cell across, and the grid fitted
  // through where they matched (weighted by how well).
  const reachX = Math.max(2, Math.round(placed.pitch * 0.25));
  const positions: { x: number; y: number; w: number }[] = [];
  for (const index of sample) {
    const left = placed.start + index * placed.pitch;
    const match = matchCell(field, templates, left, placed.intercept + placed.slope * left, cell, reachX, stepY, stepY);
    if (match !== null) positions.push({ x: index, y: match.left, w: Math.max(0, match.score) ** 2 });
  }
  const fitted = fitTops(positions);
  if (positions.length < sample.length / 2 || Math.abs(fitted.slope / placed.pitch - 1) > 0.05) return placed;
  return { ...placed, start: fitted.intercept, pitch: fitted.slope };
}

/**
 * The line's cells matched one after another from its first: each where the one before it matched plus
 * the pitch, within two pixels either way, and the pitch taken from the steps between cells matched
 * surely. A straightened band still shows its pitch changing by a few per cent along a line (the
 * straightening is fitted on the lines' ends: s99-000184's names line 24.8 px a cell at its start against
 * 24.2 on average), which a single grid carries a third of a cell off by the line's far end.
 */
function readLine(
  field: InkField,
  templates: readonly Template[],
  cell: { width: number; height: number },
  grid: LineGrid,
  length: number,
): CellMatch[] | null {
  const cells: CellMatch[] = [];
  let pitch = grid.pitch;
  let previous: CellMatch | null = null;
  for (let index = 0; index < length; index += 1) {
    const fromGrid = grid.start + index * grid.pitch;
    const left = previous === null ? fromGrid : previous.left + pitch;
    // The first cell has no neighbour to go by: a fifth of a cell either way.
    const reachX = previous === null ? Math.max(2, Math.round(grid.pitch * 0.2)) : 2;
    const match = placeCell(field, templates, left, grid.intercept + grid.slope * left, cell, reachX);
    if (match === null) return null;
    if (previous !== null && match.score >= TRACKING_SCORE && previous.score >= TRACKING_SCORE) {
      const step = match.left - previous.left;
      if (Math.abs(step / grid.pitch - 1) <= 0.1) pitch = pitch * 0.7 + step * 0.3;
    }
    // An unsure cell does not move the line: the next is placed from where this one should stand.
    previous = match.score >= TRACKING_SCORE || previous === null ? match : { ...match, left: Math.round(previous.left + pitch) };
    cells.push(match);
  }
  // The first cell was placed from the grid alone; its neighbour, matched surely, places it better.
  const [first, second] = cells;
  if (first !== undefined && second !== undefined && second.score >= TRACKING_SCORE) {
    const left = second.left - pitch;
    const again = placeCell(field, templates, left, grid.intercept + grid.slope * left, cell);
    if (again !== null && again.score > first.score) cells[0] = again;
  }
  return cells;
}

function boxOf(cells: readonly CellMatch[], cell: { width: number; height: number }): OcrBox {
  return {
    x0: Math.min(...cells.map((match) => match.left)),
    y0: Math.min(...cells.map((match) => match.top)),
    x1: Math.max(...cells.map((match) => match.left + cell.width)),
    y1: Math.max(...cells.map((match) => match.top + cell.height)),
  };
}

function ocrLineOf(cells: readonly CellMatch[], cell: { width: number; height: number }): OcrLine {
  const symbols: OcrSymbol[] = cells.map((match) => ({
    text: match.character,
    confidence: Math.round(Math.max(0, match.score) * 100),
    bbox: { x0: match.left, y0: match.top, x1: match.left + cell.width, y1: match.top + cell.height },
  }));
  const text = cells.map((match) => match.character).join('');
  const confidence =
    Math.round((symbols.reduce((sum, symbol) => sum + symbol.confidence, 0) / Math.max(1, symbols.length)) * 10) / 10;
  const bbox = boxOf(cells, cell);
  return { text, confidence, bbox, words: [{ text, confidence, bbox, symbols }] };
}

/**
 * The band's lines read as OCR-B cells, in the OCR's result shape (text, confidences 0–100 as the
 * correlation, boxes in the band's pixels), for the same fitting and checks. `lengths` are the
 * characters a line may hold (30 for three lines; 44 or 36 for two): the one whose cells match best is
 * read. `sigma` is the band's measured blur (px); `level` says the lines were only assumed level
 * (`levelMrzLines`), not traced. Null when the lines do not fit in the band.
 */
export function readMrzGlyphs(
  band: GreyRaster,
  lines: readonly GlyphLineLayout[],
  lengths: readonly number[],
  sigma: number,
  options: { level?: boolean } = {},
): OcrResult | null {
  // Lines traced across the band (`rectify.ts`) are level and centred; lines only assumed level
  // (`levelMrzLines`) may slant or sit off their centre by a third of a character.
  const reachShare = options.level === true ? 0.35 : 0.1;
  const field = new InkField(band);
  // Each length's grids first; only the one whose sampled cells match best is read cell by cell.
  let chosen: {
    grids: LineGrid[];
    mean: number;
    cell: { width: number; height: number };
    templates: Template[];
    length: number;
  } | null = null;
  for (const length of lengths) {
    const spans = lines.map((line) => (line.right - line.left) / (length - 2 * SIDE_BEARING));
    const pitch = spans.reduce((sum, value) => sum + value, 0) / Math.max(1, spans.length);
    const cell = { width: Math.max(6, Math.round(pitch)), height: Math.max(6, Math.round(pitch * OCR_B_ASPECT)) };
    const templates = templatesAt(cell.width, cell.height, sigma);
    const grids = lines.map((line) => lineGrid(field, templates, cell, line, length, reachShare));
    if (grids.some((grid) => grid === null)) continue;
    const found = grids.filter((grid): grid is LineGrid => grid !== null);
    const mean = found.reduce((sum, grid) => sum + grid.total, 0) / found.length;
    if (chosen === null || mean > chosen.mean) chosen = { grids: found, mean, cell, templates, length };
  }
  if (chosen === null) return null;
  const read: CellMatch[][] = [];
  for (const grid of chosen.grids) {
    const cells = readLine(field, chosen.templates, chosen.cell, grid, chosen.length);
    if (cells === null) return null;
    read.push(cells);
  }
  // A line whose cells match this poorly on average was not laid out on its glyphs (a grid gone astray
  // along a dim zone whose lines were only assumed level): its characters are noise, and fitted to a
  // format they can hold check digits by chance.
  if (read.some((cells) => cells.reduce((sum, match) => sum + match.score, 0) / cells.length < MIN_LINE_SCORE)) return null;
  const all = read.flat();
  const mean = all.reduce((sum, match) => sum + match.score, 0) / Math.max(1, all.length);
  const ocrLines = read.map((cells) => ocrLineOf(cells, chosen.cell));
  return { text: ocrLines.map((line) => line.text).join('\n'), confidence: Math.round(mean * 1000) / 10, lines: ocrLines };
}
