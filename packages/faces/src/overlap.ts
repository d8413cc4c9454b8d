import { SAME_FACE_OVERLAP } from './calibration/thresholds';

export { SAME_FACE_OVERLAP } from './calibration/thresholds';

/** A face's box, in pixels of the analysed image. */
export interface FaceBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The share of the smaller box that the two boxes have in common (intersection over the minimum). */
export function overlapOfSmaller(a: FaceBox, b: FaceBox): number {
  const width = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const height = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  if (width <= 0 || height <= 0) return 0;
  const smaller = Math.min(a.width * a.height, b.width * b.height);
  return smaller <= 0 ? 0 : (width * height) / smaller;
}

/**
 * One detection per face: the most confident first (the larger on a tie), each later one dropped when
 * it overlaps a kept one by `SAME_FACE_OVERLAP` of the smaller box. The result keeps the input's order.
 */
export function oneDetectionPerFace<T extends { box: FaceBox; score: number }>(faces: readonly T[]): T[] {
  const byConfidence = [...faces].sort((a, b) => b.score - a.score || b.box.width * b.box.height - a.box.width * a.box.height);
  const kept: T[] = [];
  for (const face of byConfidence)
    if (kept.every((other) => overlapOfSmaller(face.box, other.box) < SAME_FACE_OVERLAP)) kept.push(face);
  return faces.filter((face) => kept.includes(face));
}
