/**
 * Face similarity on `faceres` embeddings, the same scale as human's `match.similarity` (euclidean
 * distance × 25, mapped from 0.2–0.8 to 0–1 and clamped) without its rounding to two decimals, so the
 * figures in TOOLING.md and docs/faces.md read on the same scale.
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

/**
 * PROVISIONAL, until the corpus calibrates it for a stated false-accept rate (issue 11): the middle of
 * the gap measured on human's model in TOOLING.md, different people 0.08–0.50 and the same person
 * 0.63–0.84, rounded up towards the same-person side to favour false rejects over false accepts. The
 * measurements in docs/faces.md ("Provisional thresholds") are consistent with it but far too few to
 * state a rate.
 */
export const FACE_MATCH_THRESHOLD = 0.58;

/**
 * PROVISIONAL: frames of one liveness attempt compared with its reference frame. Not lower than the
 * match threshold, although a turned head embeds further from the frontal face, because two different
 * people already reached 0.528 here (docs/faces.md): a face swapped between frames must not pass.
 */
export const FRAME_CONSISTENCY_THRESHOLD = FACE_MATCH_THRESHOLD;

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
