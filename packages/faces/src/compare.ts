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
 * Calibrated on the face corpus (bench/faces, seed 11, docs/faces.md "Calibration"): 945 different-people
 * pairs (each of 22 people's selfie and live reference frame against the others' document portraits,
 * selfie × selfie, portrait × portrait) reached at most 0.689 (p99 0.598; 13 of them, 1.4%, were at or
 * above the earlier 0.58). At 0.70 none is accepted: a false-accept rate of at most 0.32% at 95%
 * confidence by the rule of three, and less certain than that suggests, since the pairs come from only
 * 22 people. Same-person pairs (a selfie or live frame against the person's own portrait) measured
 * 0.838–0.99, but they are altered copies of one photo: no two real photos of one person exist in the
 * licensed images, and TOOLING.md measured 0.63–0.84 for real pairs, so some genuine people will be
 * refused at 0.70. That trade (false rejects, retried or reviewed, over false accepts) is deliberate.
 */
export const FACE_MATCH_THRESHOLD = 0.7;

/**
 * Frames of one liveness attempt against its reference frame. Lower than the match threshold because a
 * turned head embeds further from the frontal face (same-person live frames measured down to 0.646 on
 * the corpus's turned frames, and down to 0.511 on its most warped ones), not lower than 0.58 because
 * different people reach it: 13 of 945 different-people pairs (1.4%) were ≥ 0.58, and frames swapped in
 * from another person measured at most 0.463 against the reference (bench/faces, seed 11).
 */
export const FRAME_CONSISTENCY_THRESHOLD = 0.58;

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
