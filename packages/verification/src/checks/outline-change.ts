import type { Point } from '../image/geometry';

/**
 * How differently shaped two outlines of one card are, once turning, moving and scaling are taken out:
 * the root mean square distance between their corners after the best similarity transform of one onto
 * the other, in units of the outline's own size (its corners' root mean square distance from their
 * centre). 0 for the same shape (a photo and a copy of it, rescaled, cropped or turned, or a second
 * photo taken from the same angle); a card tilted by 15–30° between two photos moves it by 0.01–0.1.
 * Corners are matched in order (both clockwise), whichever corner either list starts with.
 */
export function outlineChange(a: readonly Point[], b: readonly Point[]): number {
  if (a.length !== b.length || a.length < 3) throw new Error('two outlines with the same number of corners are compared');
  const centred = (points: readonly Point[]) => {
    const cx = points.reduce((sum, p) => sum + p.x, 0) / points.length;
    const cy = points.reduce((sum, p) => sum + p.y, 0) / points.length;
    return points.map((p) => ({ x: p.x - cx, y: p.y - cy }));
  };
  const z = centred(a);
  const w = centred(b);
  const zz = z.reduce((sum, p) => sum + p.x * p.x + p.y * p.y, 0);
  const ww = w.reduce((sum, p) => sum + p.x * p.x + p.y * p.y, 0);
  if (zz === 0 || ww === 0) return 0;
  let best = Number.POSITIVE_INFINITY;
  for (let shift = 0; shift < w.length; shift += 1) {
    // The similarity is multiplication by one complex number s: the least squares one is
    // Σ conj(z)·w / Σ |z|², and what it leaves is ‖w‖² − |Σ conj(z)·w|² / ‖z‖².
    let re = 0;
    let im = 0;
    for (let i = 0; i < z.length; i += 1) {
      const p = z[i]!;
      const q = w[(i + shift) % w.length]!;
      re += p.x * q.x + p.y * q.y;
      im += p.x * q.y - p.y * q.x;
    }
    const left = Math.max(0, ww - (re * re + im * im) / zz);
    best = Math.min(best, Math.sqrt(left / ww));
  }
  return best;
}
