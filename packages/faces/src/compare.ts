import { FACE_MATCH_THRESHOLD } from './calibration/thresholds';

export { FACE_MATCH_THRESHOLD, FRAME_CONSISTENCY_THRESHOLD } from './calibration/thresholds';

/**
 * Face similarity on `faceres` embeddings, the same scale as human's `match.similarity` (euclidean
 * distance × 25, mapped from 0.2–0.8 to 0–1 and clamped) without its rounding to two decimals, so the
 * figures in docs/design.md ("Toolchain facts") and docs/faces.md read on the same scale.
 */
export function faceSimilarity(a: readonly number[], b: readonly number[]): number {
  if (a.length === 0 || a.length !== b.length) return 0;
  let sum = 0;
  for (let index = 0; index < a.length; index += 1) {
    const diff = (a[index] ?? 0) - (b[index] ?? 0);
    sum += diff * diff;
  }
  if (sum === 0) return 1;
  const root = Math.sqrt(25 * sum);
  const normalised = (1 - root / 100 - 0.2) / (0.8 - 0.2);
  return Math.min(1, Math.max(0, normalised));
}

export interface FaceComparison {
  similarity: number;
  threshold: number;
  match: boolean;
}

/** Pure: two embeddings, a similarity and the decision against the threshold in use. */
export function compareFaces(
  a: readonly number[],
  b: readonly number[],
  threshold: number = FACE_MATCH_THRESHOLD,
): FaceComparison {
  const similarity = faceSimilarity(a, b);
  return { similarity: Math.round(similarity * 1000) / 1000, threshold, match: similarity >= threshold };
}
