import type { FaceBox } from './engine';

/**
 * What surrounds the face in a frame: the room behind the person, their shoulders and clothes. Within the
 * few seconds of one challenge these stay put while the head turns; frames spliced in from other footage
 * (another person's recording, another day's) bring their own. The layout is a coarse grid over the frame
 * of what lies outside the face and hair, each cell holding:
 *
 * - the luma's rank among the frame's periphery (0–1: exposure and tone curve cancel out),
 * - the two chroma components relative to the periphery's mean colour and luma (white balance and gain
 *   cancel out),
 * - the luma relative to the periphery's mean, which only says how much structure there is to compare.
 *
 * `sceneChange` compares two layouts by the correlation of their cells, channel by channel. A plain wall
 * has no structure to correlate and abstains rather than refuse (docs/faces.md "The scene along the
 * sequence", with the figures the limit was chosen from).
 */
export interface SceneLayout {
  columns: number;
  rows: number;
  /** Per cell, `CHANNELS` values in order; null where too little of the cell lies outside the face. */
  cells: (number[] | null)[];
}

const COLUMNS = 6;
const ROWS = 8;
/** rank, chroma blue, chroma red, relative luma. */
const CHANNELS = 4;
/** Every second pixel of every second row: the cells are 80 px and more on a 480×640 frame. */
const STEP = 2;
/** The face box grown to cover the hair and the neck, which move with the head. */
const AROUND_FACE = { left: 0.3, right: 0.3, above: 0.45, below: 0.15 } as const;
/** A cell counts when at least this share of its samples lies outside the face. */
const MIN_CELL_SHARE = 0.05;
/**
 * Below this spread over the cells a channel has too little structure to correlate, and its weight falls
 * in proportion (relative luma for the rank channel; relative chroma for the two chroma channels).
 */
const STRUCTURE_FLOOR = [0.1, 0.02, 0.02] as const;
/** Fewer common cells than this and the layouts are not compared. */
const MIN_COMMON_CELLS = 8;

export function sceneLayout(data: Uint8Array, width: number, height: number, face: FaceBox): SceneLayout {
  const left = face.x - AROUND_FACE.left * face.width;
  const right = face.x + (1 + AROUND_FACE.right) * face.width;
  const top = face.y - AROUND_FACE.above * face.height;
  const bottom = face.y + (1 + AROUND_FACE.below) * face.height;
  const outside = (x: number, y: number) => x < left || x > right || y < top || y > bottom;

  // One read of every sampled pixel outside the face: its cell, luma and chroma.
  const capacity = Math.ceil(width / STEP) * Math.ceil(height / STEP);
  const sampleCell = new Int32Array(capacity);
  const sampleLuma = new Float32Array(capacity);
  const sampleBlue = new Float32Array(capacity);
  const sampleRed = new Float32Array(capacity);
  const totals = new Float64Array(COLUMNS * ROWS);
  let count = 0;
  for (let y = 0; y < height; y += STEP) {
    const row = Math.min(ROWS - 1, Math.floor((y * ROWS) / height));
    for (let x = 0; x < width; x += STEP) {
      const cell = row * COLUMNS + Math.min(COLUMNS - 1, Math.floor((x * COLUMNS) / width));
      add(totals, cell, 1);
      if (!outside(x, y)) continue;
      const offset = (y * width + x) * 3;
      const r = data[offset] ?? 0;
      const b = data[offset + 2] ?? 0;
      const luma = 0.299 * r + 0.587 * (data[offset + 1] ?? 0) + 0.114 * b;
      sampleCell[count] = cell;
      sampleLuma[count] = luma;
      sampleBlue[count] = 0.564 * (b - luma);
      sampleRed[count] = 0.713 * (r - luma);
      count += 1;
    }
  }
  const cells: (number[] | null)[] = Array.from({ length: COLUMNS * ROWS }, () => null);
  if (count === 0) return { columns: COLUMNS, rows: ROWS, cells };

  const lumaHistogram = new Float64Array(256);
  let lumaSum = 0;
  let blueSum = 0;
  let redSum = 0;
  for (let index = 0; index < count; index += 1) {
    const luma = sampleLuma[index] ?? 0;
    add(lumaHistogram, Math.min(255, Math.round(luma)), 1);
    lumaSum += luma;
    blueSum += sampleBlue[index] ?? 0;
    redSum += sampleRed[index] ?? 0;
  }
  // Rank of a luma value among the periphery's: the share below it, plus half of its own bin.
  const rankOf = new Float64Array(256);
  let below = 0;
  for (let level = 0; level < 256; level += 1) {
    const here = lumaHistogram[level] ?? 0;
    rankOf[level] = (below + here / 2) / count;
    below += here;
  }
  const meanLuma = Math.max(1, lumaSum / count);
  const meanBlue = blueSum / count;
  const meanRed = redSum / count;

  const sums = new Float64Array(COLUMNS * ROWS * CHANNELS);
  const samples = new Float64Array(COLUMNS * ROWS);
  for (let index = 0; index < count; index += 1) {
    const cell = sampleCell[index] ?? 0;
    const luma = sampleLuma[index] ?? 0;
    const at = cell * CHANNELS;
    add(sums, at, rankOf[Math.min(255, Math.round(luma))] ?? 0);
    add(sums, at + 1, ((sampleBlue[index] ?? 0) - meanBlue) / meanLuma);
    add(sums, at + 2, ((sampleRed[index] ?? 0) - meanRed) / meanLuma);
    add(sums, at + 3, luma / meanLuma);
    add(samples, cell, 1);
  }
  for (let cell = 0; cell < cells.length; cell += 1) {
    const n = samples[cell] ?? 0;
    if (n === 0 || n < MIN_CELL_SHARE * (totals[cell] ?? 0)) continue;
    cells[cell] = Array.from({ length: CHANNELS }, (_, channel) => round((sums[cell * CHANNELS + channel] ?? 0) / n));
  }
  return { columns: COLUMNS, rows: ROWS, cells };
}

function add(values: Float64Array, index: number, value: number): void {
  values[index] = (values[index] ?? 0) + value;
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

function spread(values: number[]): number {
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  return Math.sqrt(values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length);
}

function correlation(a: number[], b: number[]): number {
  const meanA = a.reduce((sum, value) => sum + value, 0) / a.length;
  const meanB = b.reduce((sum, value) => sum + value, 0) / b.length;
  let product = 0;
  let squaresA = 0;
  let squaresB = 0;
  for (let index = 0; index < a.length; index += 1) {
    const da = (a[index] ?? 0) - meanA;
    const db = (b[index] ?? 0) - meanB;
    product += da * db;
    squaresA += da * da;
    squaresB += db * db;
  }
  return squaresA === 0 || squaresB === 0 ? 0 : product / Math.sqrt(squaresA * squaresB);
}

/** One orientation of `b` against `a`: the weighted mean over the three compared channels of 1 − r. */
function changeAligned(a: SceneLayout, b: SceneLayout, mirrored: boolean): number | null {
  const pairs: [number[], number[]][] = [];
  for (let row = 0; row < a.rows; row += 1)
    for (let column = 0; column < a.columns; column += 1) {
      const first = a.cells[row * a.columns + column];
      const second = b.cells[row * b.columns + (mirrored ? b.columns - 1 - column : column)];
      if (first != null && second != null) pairs.push([first, second]);
    }
  if (pairs.length < MIN_COMMON_CELLS) return null;
  let change = 0;
  for (let channel = 0; channel < 3; channel += 1) {
    const first = pairs.map(([cells]) => cells[channel] ?? 0);
    const second = pairs.map(([, cells]) => cells[channel] ?? 0);
    // The rank channel's structure is read on the relative luma: ranks stretch any faint gradient.
    const structureChannel = channel === 0 ? 3 : channel;
    const structure = Math.min(
      spread(pairs.map(([cells]) => cells[structureChannel] ?? 0)),
      spread(pairs.map(([, cells]) => cells[structureChannel] ?? 0)),
    );
    const weight = Math.min(1, structure / (STRUCTURE_FLOOR[channel] ?? 1));
    change += weight * (1 - correlation(first, second));
  }
  return change / 3;
}

/**
 * How far the scene around the face changed between two frames: 0 for the same layout, about 1 for
 * unrelated ones (up to 2 for opposite ones). A mirror image counts as the same scene, because the face
 * corpus draws a turn its photo does not have from the photo mirrored; what that concedes is small (a
 * mirrored other scene is still another scene). Null when the layouts share too few cells to say.
 */
export function sceneChange(a: SceneLayout, b: SceneLayout): number | null {
  if (a.columns !== b.columns || a.rows !== b.rows) return null;
  const straight = changeAligned(a, b, false);
  const mirrored = changeAligned(a, b, true);
  if (straight === null || mirrored === null) return straight ?? mirrored;
  return Math.min(straight, mirrored);
}
