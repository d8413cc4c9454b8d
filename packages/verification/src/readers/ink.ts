import { INK_BACKGROUND_SHARE, INK_DROP, INK_MIN_DROP_LEVELS, INK_PAPER_SHARE } from '../calibration/image';
import type { GreyRaster } from '../image/raster';

/**
 * Which pixels are ink: darker than their own surroundings by a share of the image's contrast, on
 * surroundings bright enough to be paper.
 *
 * One threshold for the whole image (a share of its mean) fails on a card photographed on a dark table:
 * the table pulls the mean down until the threshold sits below the ink, or, when it does not, the table
 * itself counts as ink and buries the text's lines under one dark blob. A local mean (box filter over
 * an integral image) follows the paper under a vignette, a light gradient or glare as well.
 */
export interface InkOptions {
  /** Half the side of the box the local mean is taken over (px): a few stroke widths, about a character. */
  radius: number;
  /** Share of the contrast (5th to 95th percentile) by which ink is darker than its surroundings. */
  drop?: number;
  /** Share of the contrast above the 5th percentile that the wider surroundings must reach to be paper. */
  paper?: number;
  /**
   * Or the share that the wider surroundings' pixels not darker than their own surroundings (the paper
   * between strokes) must reach: higher than `paper`, as the brighter half of a noisy dark table's
   * pixels stands above its mean.
   */
  background?: number;
}

export function percentiles(data: Uint8Array, low: number, high: number): { low: number; high: number } {
  const histogram = new Uint32Array(256);
  for (let index = 0; index < data.length; index += 1) histogram[data[index]!]! += 1;
  const at = (share: number) => {
    const target = share * data.length;
    let seen = 0;
    for (let value = 0; value < 256; value += 1) {
      seen += histogram[value] ?? 0;
      if (seen >= target) return value;
    }
    return 255;
  };
  return { low: at(low), high: at(high) };
}

/**
 * A table for running sums up to `largest`: 32-bit integers where they hold it (a 1600 × 1200 photo's
 * sums do, and the tables are then half the memory to fill and read), doubles otherwise.
 */
function sumTable(length: number, largest: number): Uint32Array | Float64Array {
  return largest <= 0xffffffff ? new Uint32Array(length) : new Float64Array(length);
}

export function inkMask(raster: GreyRaster, options: InkOptions): Uint8Array {
  const { data, width, height } = raster;
  const radius = Math.max(1, Math.round(options.radius));
  const { low, high } = percentiles(data, 0.05, 0.95);
  const contrast = Math.max(1, high - low);
  // Noise (sensor noise in a dim photo is σ ≈ 10 grey levels) must not pass for ink.
  const minDrop = Math.max(INK_MIN_DROP_LEVELS, contrast * (options.drop ?? INK_DROP));
  const minPaper = low + contrast * (options.paper ?? INK_PAPER_SHARE);
  const minBackground = low + contrast * (options.background ?? INK_BACKGROUND_SHARE);

  const stride = width + 1;
  // Two integral images: of the grey values, and of the values and count of the pixels at least as bright
  // as their own surroundings (what is not ink: the paper between the strokes). Every sum is of whole
  // numbers, exact in a double whatever the order it is taken in. The loops below read the tables by
  // offsets computed once a row: per pixel, clamped boxes through closures cost this function a tenth of
  // a side's reading (it runs on the whole page for its skew and again for each MRZ turn and zone).
  const integral = sumTable(stride * (height + 1), width * height * 255);
  for (let y = 0; y < height; y += 1) {
    const row = y * width;
    const above = y * stride + 1;
    const here = above + stride;
    let rowSum = 0;
    for (let x = 0; x < width; x += 1) {
      rowSum += data[row + x]!;
      integral[here + x] = integral[above + x]! + rowSum;
    }
  }
  // The clamped extent of the box of half side `r` around column x (or row y): its first and past-last index.
  const first = (at: number, r: number) => (at > r ? at - r : 0);
  const pastLast = (at: number, r: number, size: number) => (at + r + 1 < size ? at + r + 1 : size);
  // The rows of the box around row y: where its top and bottom edges start in a table, and how many.
  const rowsAround = (y: number, r: number) => {
    const top = first(y, r);
    const bottom = pastLast(y, r, height);
    return { topRow: top * stride, bottomRow: bottom * stride, rows: bottom - top };
  };

  const means = new Float32Array(width * height);
  const backgroundSum = sumTable(stride * (height + 1), width * height * 255);
  const backgroundCount = sumTable(stride * (height + 1), width * height);
  for (let y = 0; y < height; y += 1) {
    const { topRow, bottomRow, rows } = rowsAround(y, radius);
    const row = y * width;
    const above = y * stride + 1;
    const here = above + stride;
    let rowSum = 0;
    let rowCount = 0;
    for (let x = 0; x < width; x += 1) {
      const left = first(x, radius);
      const right = pastLast(x, radius, width);
      const value = data[row + x]!;
      const sum =
        integral[bottomRow + right]! - integral[topRow + right]! - integral[bottomRow + left]! + integral[topRow + left]!;
      const mean = sum / (rows * (right - left));
      means[row + x] = mean;
      if (value >= mean) {
        rowSum += value;
        rowCount += 1;
      }
      backgroundSum[here + x] = backgroundSum[above + x]! + rowSum;
      backgroundCount[here + x] = backgroundCount[above + x]! + rowCount;
    }
  }
  // Paper is judged over a wider box than the ink: its mean, or where bold characters pull that under
  // (inside three lines of dense MRZ digits: s7-000046 lost half of a 2009 front's zone), the mean of its
  // pixels not darker than their surroundings, at a higher share. That one alone let a dim photo's noisy
  // dark table in (its brighter half stands above its mean: s99-000007's back joined to the table); at
  // 0.4 and 0.5 of the contrast both photos give their zones at either of the first two turns, at 0.6 the
  // first at one turn only (2026-11-26).
  const paperRadius = radius * 4;
  const mask = new Uint8Array(width * height);
  for (let y = 0; y < height; y += 1) {
    const { topRow, bottomRow, rows } = rowsAround(y, paperRadius);
    const row = y * width;
    for (let x = 0; x < width; x += 1) {
      const value = data[row + x]!;
      if (means[row + x]! - value < minDrop) continue;
      const left = first(x, paperRadius);
      const right = pastLast(x, paperRadius, width);
      const a = bottomRow + right;
      const b = topRow + right;
      const c = bottomRow + left;
      const d = topRow + left;
      if ((integral[a]! - integral[b]! - integral[c]! + integral[d]!) / (rows * (right - left)) >= minPaper) {
        mask[row + x] = 1;
        continue;
      }
      const count = backgroundCount[a]! - backgroundCount[b]! - backgroundCount[c]! + backgroundCount[d]!;
      if (count > 0 && (backgroundSum[a]! - backgroundSum[b]! - backgroundSum[c]! + backgroundSum[d]!) / count >= minBackground)
        mask[row + x] = 1;
    }
  }
  return mask;
}
