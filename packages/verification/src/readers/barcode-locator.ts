import * as barcodeCalibration from '../calibration/barcode';
import type { GreyRaster } from '../image/raster';

/**
 * Where a PDF417 probably is, and how it is turned, before zxing is asked: a dim, noisy photo's symbol
 * reads only from a tight crop upscaled about three times (its modules are 2–3 px wide; zxing's own
 * downscaled view of the whole photo finds nothing), and a tilted one reads at once at its own angle
 * instead of after a ladder of tilts.
 *
 * A barcode is the part of the photo whose gradients are strong and all point one way (its bars):
 * per cell of the image, the structure tensor's energy (sum of squared gradients) and coherence (how
 * much of it lies along one direction). Text and photos have strong gradients in every direction, the
 * guilloche background weak ones. Neighbouring cells that are strong, coherent and agree on the
 * direction form a candidate; the largest come first.
 */
export interface LocatedBarcode {
  /** Clockwise turn (degrees, in [-45, 45)) that makes the bars run vertically or horizontally. */
  angle: number;
  /** The candidate's cell corners, as shares of the image's width and height. */
  points: { x: number; y: number }[];
  /** Cells in the candidate (its size at the analysis scale). */
  cells: number;
  /** Mean coherence of its cells (0–1). */
  coherence: number;
}

// The locator's figures are in calibration/barcode.ts. Copied into module constants: compiled to
// CommonJS, each use of an imported constant is a property read, and the loops below run per cell.
const {
  CELLS_PER_SIDE,
  MIN_COHERENCE,
  MIN_GROWTH_COHERENCE,
  ENERGY_SHARE,
  MAX_DIRECTION_SPREAD,
  MIN_CELLS,
  MIN_THICKNESS_CELLS,
  MIN_FILL,
} = barcodeCalibration;

interface Cell {
  energy: number;
  coherence: number;
  /** The gradient's direction, degrees in [-90, 90). */
  direction: number;
}

const NEIGHBOURS: readonly (readonly [number, number])[] = [
  [0, 1],
  [0, -1],
  [1, 0],
  [-1, 0],
  [1, 1],
  [1, -1],
  [-1, 1],
  [-1, -1],
  [0, 2],
  [0, -2],
  [2, 0],
  [-2, 0],
];

function directionDistance(a: number, b: number): number {
  const difference = Math.abs(a - b) % 180;
  return Math.min(difference, 180 - difference);
}

export function locateBarcodes(raster: GreyRaster, limit = 2): LocatedBarcode[] {
  const { data, width, height } = raster;
  const CELL = Math.max(4, Math.round(Math.max(width, height) / CELLS_PER_SIDE));
  const columns = Math.floor(width / CELL);
  const rows = Math.floor(height / CELL);
  if (columns < 3 || rows < 3) return [];
  const cells: Cell[] = new Array<Cell>(columns * rows);
  const energies: number[] = [];
  for (let row = 0; row < rows; row += 1) {
    for (let column = 0; column < columns; column += 1) {
      let xx = 0;
      let yy = 0;
      let xy = 0;
      for (let y = row * CELL; y < (row + 1) * CELL; y += 1) {
        const up = Math.max(0, y - 1) * width;
        const down = Math.min(height - 1, y + 1) * width;
        const here = y * width;
        for (let x = column * CELL; x < (column + 1) * CELL; x += 1) {
          const gx = data[here + (x + 1 < width ? x + 1 : x)]! - data[here + (x > 0 ? x - 1 : 0)]!;
          const gy = data[down + x]! - data[up + x]!;
          xx += gx * gx;
          yy += gy * gy;
          xy += gx * gy;
        }
      }
      const energy = xx + yy;
      const coherence = energy > 0 ? Math.sqrt((xx - yy) ** 2 + 4 * xy * xy) / energy : 0;
      let direction = (Math.atan2(2 * xy, xx - yy) * 90) / Math.PI;
      if (direction >= 90) direction -= 180;
      cells[row * columns + column] = { energy, coherence, direction };
      energies.push(energy);
    }
  }
  energies.sort((a, b) => a - b);
  const strongest = energies[Math.floor(energies.length * 0.99)] ?? 0;
  if (strongest <= 0) return [];
  const minEnergy = strongest * ENERGY_SHARE;
  const candidate = (index: number, coherence = MIN_COHERENCE) => {
    const cell = cells[index];
    return cell !== undefined && cell.energy >= minEnergy && cell.coherence >= coherence;
  };

  const seen = new Uint8Array(columns * rows);
  const found: LocatedBarcode[] = [];
  for (let start = 0; start < cells.length; start += 1) {
    if (seen[start] === 1 || !candidate(start)) continue;
    const seed = cells[start]!;
    const members: number[] = [];
    const stack = [start];
    seen[start] = 1;
    while (stack.length > 0) {
      const index = stack.pop()!;
      members.push(index);
      // A weakly coherent cell joins but does not grow the candidate: chains of them are noise or print.
      if (cells[index]!.coherence < MIN_COHERENCE) continue;
      const row = Math.floor(index / columns);
      const column = index % columns;
      // Neighbours, and across one weak cell: a symbol's blurred or noisy cells split it otherwise.
      for (const [dr, dc] of NEIGHBOURS) {
        const r = row + dr;
        const c = column + dc;
        if (r < 0 || r >= rows || c < 0 || c >= columns) continue;
        const next = r * columns + c;
        if (seen[next] === 1 || !candidate(next, MIN_GROWTH_COHERENCE)) continue;
        const cell = cells[next]!;
        if (cell.coherence >= MIN_COHERENCE && directionDistance(cell.direction, seed.direction) > MAX_DIRECTION_SPREAD) continue;
        seen[next] = 1;
        stack.push(next);
      }
    }
    if (members.length < MIN_CELLS) continue;
    // The direction from the coherent members' summed structure tensors (doubled angles weighted by
    // energy × coherence: directions wrap at 180°).
    let sx = 0;
    let sy = 0;
    let coherence = 0;
    for (const index of members) {
      const cell = cells[index]!;
      coherence += cell.coherence;
      if (cell.coherence < MIN_COHERENCE) continue;
      const radians = (cell.direction * Math.PI) / 90;
      sx += Math.cos(radians) * cell.energy * cell.coherence;
      sy += Math.sin(radians) * cell.energy * cell.coherence;
    }
    const direction = (Math.atan2(sy, sx) * 90) / Math.PI;
    // Turning by minus the gradient's direction makes it horizontal (bars vertical); zxing itself reads
    // the quarter turns, so the turn is reduced to the nearest axis.
    let angle = -direction;
    while (angle >= 45) angle -= 90;
    while (angle < -45) angle += 90;
    // Shape, in the frame where the bars are upright: thick and filled, or it is a line or an edge.
    const radians = (angle * Math.PI) / 180;
    const cos = Math.cos(radians);
    const sin = Math.sin(radians);
    let minU = Infinity;
    let maxU = -Infinity;
    let minV = Infinity;
    let maxV = -Infinity;
    for (const index of members) {
      const x = (index % columns) + 0.5;
      const y = Math.floor(index / columns) + 0.5;
      const u = x * cos - y * sin;
      const v = x * sin + y * cos;
      minU = Math.min(minU, u);
      maxU = Math.max(maxU, u);
      minV = Math.min(minV, v);
      maxV = Math.max(maxV, v);
    }
    const across = maxU - minU + 1;
    const down = maxV - minV + 1;
    if (Math.min(across, down) < MIN_THICKNESS_CELLS || members.length / (across * down) < MIN_FILL) continue;
    const points = members.flatMap((index) => {
      const row = Math.floor(index / columns);
      const column = index % columns;
      return [
        { x: (column * CELL) / width, y: (row * CELL) / height },
        { x: ((column + 1) * CELL) / width, y: ((row + 1) * CELL) / height },
        { x: ((column + 1) * CELL) / width, y: (row * CELL) / height },
        { x: (column * CELL) / width, y: ((row + 1) * CELL) / height },
      ];
    });
    found.push({ angle: Math.round(angle * 10) / 10, points, cells: members.length, coherence: coherence / members.length });
  }
  return found.sort((a, b) => b.cells - a.cells).slice(0, limit);
}
