import { descreen } from '../src/image/descreen';
import type { GreyRaster } from '../src/image/raster';

const WIDTH = 640;
const HEIGHT = 160;

/** Whether a character's cell (16×36 px) is inked at (x, y): five glyph shapes with 4 px strokes. */
function glyph(shape: number, x: number, y: number): boolean {
  const left = x < 4;
  const right = x >= 12;
  const top = y < 4;
  const middle = y >= 16 && y < 20;
  const bottom = y >= 32;
  const centre = x >= 6 && x < 10;
  switch (shape) {
    case 0: // H
      return left || right || middle;
    case 1: // O
      return left || right || top || bottom;
    case 2: // I
      return centre;
    case 3: // L
      return left || bottom;
    default: // E
      return left || top || middle || bottom;
  }
}

/**
 * A zone at the OCR's width: light paper and two lines of characters (16 px wide every 26 px, 36 px
 * tall, five shapes in an irregular order, as an MRZ's letters and digits), optionally crossed by a
 * screen's grid: dark lines 2 px wide every `columnPeriod` px across and every `rowPeriod` px down, as
 * a display's black matrix photographed at a slight angle.
 */
function zone(grid: { columnPeriod: number; rowPeriod: number; depth: number } | null): GreyRaster {
  const data = Buffer.alloc(WIDTH * HEIGHT);
  for (let y = 0; y < HEIGHT; y += 1) {
    for (let x = 0; x < WIDTH; x += 1) {
      let value = 220;
      for (const [line, top] of [30, 96].entries()) {
        const index = Math.floor((x - 20) / 26);
        const column = (x - 20) % 26;
        const inCell = x >= 20 && x < WIDTH - 20 && column < 16 && y >= top && y < top + 36;
        if (inCell && glyph((index * 7 + line * 3 + ((index * index) % 3)) % 5, column, y - top)) value = 40;
      }
      if (grid !== null) {
        const across = 0.5 + 0.5 * Math.cos((2 * Math.PI * (x + 0.08 * y)) / grid.columnPeriod);
        const down = 0.5 + 0.5 * Math.cos((2 * Math.PI * (y + 0.05 * x)) / grid.rowPeriod);
        value -= grid.depth * Math.max(across, down) ** 4;
      }
      data[y * WIDTH + x] = Math.max(0, Math.min(255, value));
    }
  }
  return { data, width: WIDTH, height: HEIGHT };
}

/** Standard deviation of a raster's pixels over rows `from`…`to` (the grid's swing on blank paper). */
function deviation(raster: GreyRaster, from: number, to: number): number {
  const values = Array.from(raster.data.subarray(from * WIDTH, to * WIDTH));
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  return Math.sqrt(values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length);
}

/** Pearson correlation of two rasters' pixels: how much of one's picture the other keeps, whatever its level. */
function correlation(a: GreyRaster, b: GreyRaster): number {
  const n = a.data.length;
  const meanA = a.data.reduce((sum, value) => sum + value, 0) / n;
  const meanB = b.data.reduce((sum, value) => sum + value, 0) / n;
  let product = 0;
  let squaresA = 0;
  let squaresB = 0;
  for (let index = 0; index < n; index += 1) {
    const da = (a.data[index] ?? 0) - meanA;
    const db = (b.data[index] ?? 0) - meanB;
    product += da * db;
    squaresA += da * da;
    squaresB += db * db;
  }
  return product / Math.sqrt(squaresA * squaresB);
}

describe('descreen', () => {
  const clean = zone(null);
  const gridded = zone({ columnPeriod: 6, rowPeriod: 9, depth: 70 });

  it('when a screen grid crosses the zone, then most of its swing is gone from the paper', () => {
    // The paper between the two lines (rows 72–90), where only the grid draws anything.
    const before = deviation(gridded, 72, 90);
    const after = deviation(descreen(gridded), 72, 90);

    expect(before).toBeGreaterThan(20);
    expect(after).toBeLessThan(before / 2);
  });

  it('when a screen grid crosses the characters, then the characters are still there', () => {
    expect(correlation(descreen(gridded), clean)).toBeGreaterThan(0.8);
  });

  // The notches also take some of a line's own periodicity (a fixed pitch, runs of `<`): on the corpus's
  // clean zones, read descreened, `000` became `OOO` and `252` `ZSZ`. Hence only on a photo that looks
  // recaptured (mrz.reader.ts).
  it('when the zone has no grid, then its characters are kept, if not untouched', () => {
    const restored = descreen(clean);

    expect(correlation(restored, clean)).toBeGreaterThan(0.8);
    expect(correlation(restored, clean)).toBeLessThan(0.99);
  });

  it('when the crop is smaller than a tile, then it comes back whole, the same size', () => {
    const small: GreyRaster = { data: Buffer.alloc(20 * 10, 200), width: 20, height: 10 };

    const restored = descreen(small);

    expect(restored.width).toBe(20);
    expect(restored.height).toBe(10);
    expect(Math.max(...restored.data)).toBeLessThanOrEqual(201);
    expect(Math.min(...restored.data)).toBeGreaterThanOrEqual(199);
  });
});
