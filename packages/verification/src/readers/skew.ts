import type { GreyRaster } from '../image/raster';
import { inkMask } from './ink';

/**
 * The angle (degrees, in [-44, 44]) by which the page's text and bar lines deviate from the horizontal
 * or the vertical, found by maximising the variance of the ink's projection profile; `axis` tells which
 * of the two the lines run closer to (a card photographed sideways). A hint for ordering the searches.
 *
 * Ink is taken against its surroundings (`inkMask`), not against the image's mean: on a dark table the
 * mean-based threshold counted the table as ink, and the table's one big blob, not the lines of text,
 * decided the angle (0° for a card turned by 11°).
 */
export interface SkewEstimate {
  degrees: number;
  axis: 'horizontal' | 'vertical';
  /** The best profile's sum of squares over the unturned one's (1 when no angle does better). */
  strength: number;
}

// At the 600–800 px the estimate is made at, a character is 8–15 px tall.
const INK_RADIUS_SHARE = 0.012;

export function estimatePageSkew(raster: GreyRaster): SkewEstimate {
  const { width, height } = raster;
  const mask = inkMask(raster, { radius: Math.max(4, Math.round(Math.max(width, height) * INK_RADIUS_SHARE)) });
  const xs: number[] = [];
  const ys: number[] = [];
  // Every other pixel is enough and keeps this to a few milliseconds.
  for (let y = 0; y < height; y += 2) {
    for (let x = 0; x < width; x += 2) {
      if (mask[y * width + x] === 1) {
        xs.push(x);
        ys.push(y);
      }
    }
  }
  let best: { degrees: number; axis: SkewEstimate['axis']; score: number } = { degrees: 0, axis: 'horizontal', score: 0 };
  let baseline = 0;
  const diagonal = Math.ceil(Math.hypot(width, height)) + 2;
  const bins = new Float64Array(diagonal * 2);
  for (const axis of ['horizontal', 'vertical'] as const) {
    for (let degrees = -44; degrees <= 44; degrees += 1) {
      const radians = (degrees * Math.PI) / 180;
      const sin = Math.sin(radians);
      const cos = Math.cos(radians);
      bins.fill(0);
      for (let index = 0; index < xs.length; index += 1) {
        const x = xs[index] ?? 0;
        const y = ys[index] ?? 0;
        const projected = axis === 'horizontal' ? y * cos - x * sin : x * cos + y * sin;
        const bin = Math.round(projected / 2) + diagonal;
        bins[bin] = (bins[bin] ?? 0) + 1;
      }
      let squares = 0;
      for (const count of bins) squares += count * count;
      if (squares > best.score) best = { degrees, axis, score: squares };
      if (degrees === 0 && axis === 'horizontal') baseline = squares;
    }
  }
  return { degrees: best.degrees, axis: best.axis, strength: baseline > 0 ? best.score / baseline : 0 };
}
