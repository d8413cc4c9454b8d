import type { GreyRaster } from '../image/raster';
import { SKEW_INK_RADIUS_SHARE } from '../calibration/image';
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

export function estimatePageSkew(raster: GreyRaster): SkewEstimate {
  const { width, height } = raster;
  const mask = inkMask(raster, { radius: Math.max(4, Math.round(Math.max(width, height) * SKEW_INK_RADIUS_SHARE)) });
  // Every other pixel is enough; the ink's coordinates in typed arrays, which the 178 projections below read.
  const xs = new Float64Array(Math.ceil(width / 2) * Math.ceil(height / 2));
  const ys = new Float64Array(xs.length);
  let count = 0;
  for (let y = 0; y < height; y += 2) {
    for (let x = 0; x < width; x += 2) {
      if (mask[y * width + x] === 1) {
        xs[count] = x;
        ys[count] = y;
        count += 1;
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
      if (axis === 'horizontal') {
        for (let index = 0; index < count; index += 1)
          bins[Math.round((ys[index]! * cos - xs[index]! * sin) / 2) + diagonal]! += 1;
      } else {
        for (let index = 0; index < count; index += 1)
          bins[Math.round((xs[index]! * cos + ys[index]! * sin) / 2) + diagonal]! += 1;
      }
      let squares = 0;
      for (let bin = 0; bin < bins.length; bin += 1) squares += bins[bin]! * bins[bin]!;
      if (squares > best.score) best = { degrees, axis, score: squares };
      if (degrees === 0 && axis === 'horizontal') baseline = squares;
    }
  }
  return { degrees: best.degrees, axis: best.axis, strength: baseline > 0 ? best.score / baseline : 0 };
}
