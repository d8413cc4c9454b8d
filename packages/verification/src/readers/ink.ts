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
  for (let index = 0; index < data.length; index += 1) histogram[data[index] ?? 0] = (histogram[data[index] ?? 0] ?? 0) + 1;
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

export function inkMask(raster: GreyRaster, options: InkOptions): Uint8Array {
  const { data, width, height } = raster;
  const radius = Math.max(1, Math.round(options.radius));
  const { low, high } = percentiles(data, 0.05, 0.95);
  const contrast = Math.max(1, high - low);
  // Noise (sensor noise in a dim photo is σ ≈ 10 grey levels) must not pass for ink.
  const minDrop = Math.max(12, contrast * (options.drop ?? 0.18));
  const minPaper = low + contrast * (options.paper ?? 0.3);
  const minBackground = low + contrast * (options.background ?? 0.5);

  const stride = width + 1;
  // Two integral images: of the grey values, and of the values and count of the pixels at least as bright
  // as their own surroundings (what is not ink: the paper between the strokes).
  const integral = new Float64Array(stride * (height + 1));
  for (let y = 0; y < height; y += 1) {
    let rowSum = 0;
    for (let x = 0; x < width; x += 1) {
      rowSum += data[y * width + x] ?? 0;
      integral[(y + 1) * stride + x + 1] = (integral[y * stride + x + 1] ?? 0) + rowSum;
    }
  }
  const boxSum = (table: Float64Array, x: number, y: number, r: number) => {
    const top = Math.max(0, y - r);
    const bottom = Math.min(height, y + r + 1);
    const left = Math.max(0, x - r);
    const right = Math.min(width, x + r + 1);
    return (
      (table[bottom * stride + right] ?? 0) -
      (table[top * stride + right] ?? 0) -
      (table[bottom * stride + left] ?? 0) +
      (table[top * stride + left] ?? 0)
    );
  };
  const boxArea = (x: number, y: number, r: number) =>
    (Math.min(height, y + r + 1) - Math.max(0, y - r)) * (Math.min(width, x + r + 1) - Math.max(0, x - r));

  const means = new Float32Array(width * height);
  const backgroundSum = new Float64Array(stride * (height + 1));
  const backgroundCount = new Float64Array(stride * (height + 1));
  for (let y = 0; y < height; y += 1) {
    let rowSum = 0;
    let rowCount = 0;
    for (let x = 0; x < width; x += 1) {
      const value = data[y * width + x] ?? 255;
      const mean = boxSum(integral, x, y, radius) / boxArea(x, y, radius);
      means[y * width + x] = mean;
      if (value >= mean) {
        rowSum += value;
        rowCount += 1;
      }
      backgroundSum[(y + 1) * stride + x + 1] = (backgroundSum[y * stride + x + 1] ?? 0) + rowSum;
      backgroundCount[(y + 1) * stride + x + 1] = (backgroundCount[y * stride + x + 1] ?? 0) + rowCount;
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
    for (let x = 0; x < width; x += 1) {
      const value = data[y * width + x] ?? 255;
      if ((means[y * width + x] ?? 0) - value < minDrop) continue;
      if (boxSum(integral, x, y, paperRadius) / boxArea(x, y, paperRadius) >= minPaper) {
        mask[y * width + x] = 1;
        continue;
      }
      const count = boxSum(backgroundCount, x, y, paperRadius);
      if (count > 0 && boxSum(backgroundSum, x, y, paperRadius) / count >= minBackground) mask[y * width + x] = 1;
    }
  }
  return mask;
}
