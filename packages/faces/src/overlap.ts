/** A face's box, in pixels of the analysed image. */
export interface FaceBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Two detections whose boxes share at least this share of the smaller box are one face seen twice.
 *
 * human runs its non-maximum suppression on the detector's boxes, then refines each box from its mesh;
 * the refined boxes of one face can then overlap without having been suppressed: a half face nested in
 * the whole one, or a box stretched over the hair and the cheek beside it (docs/faces.md "One face seen
 * twice"). Measured on the face corpus (seed 12, 15 frames with a second detection, every one of them
 * inside or over the subject's own face): the second box shared 0.485–1.0 of the smaller box (its IoU
 * was 0.085–0.36, so IoU alone cannot tell). Two different people side by side in the corpus's group
 * photos, heads close together: at most 0.112 (31 pairs of neighbours). 0.3 is between the two.
 */
export const SAME_FACE_OVERLAP = 0.3;

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
