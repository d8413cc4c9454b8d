import { compareFaces, FACE_MATCH_THRESHOLD, faceSimilarity } from '../src/compare';
import { buildEmbedding } from './factories';

describe('faceSimilarity', () => {
  it('when both embeddings are the same, then the similarity is 1', () => {
    expect(faceSimilarity(buildEmbedding(1), buildEmbedding(1))).toBe(1);
  });

  it('when the embeddings differ, then the similarity is symmetric and within 0–1', () => {
    const a = buildEmbedding(1);
    const b = buildEmbedding(2);

    expect(faceSimilarity(a, b)).toBeCloseTo(faceSimilarity(b, a), 12);
    expect(faceSimilarity(a, b)).toBeGreaterThanOrEqual(0);
    expect(faceSimilarity(a, b)).toBeLessThan(1);
  });

  it('when the lengths differ or an embedding is empty, then nothing is similar', () => {
    expect(faceSimilarity([], [])).toBe(0);
    expect(faceSimilarity([0.1, 0.2], [0.1])).toBe(0);
  });

  it('when matches human’s scale, then a known distance maps to the known similarity', () => {
    // Euclidean distance 0.4: root of 25 × 0.16 = 2 → (1 − 0.02 − 0.2) / 0.6 = 1.3 → clamped to 1;
    // distance 8: root of 25 × 64 = 40 → (1 − 0.4 − 0.2) / 0.6 = 0.667.
    expect(faceSimilarity([0.4], [0])).toBe(1);
    expect(faceSimilarity([8], [0])).toBeCloseTo(0.6667, 3);
  });
});

describe('compareFaces', () => {
  it('when the similarity reaches the threshold, then it is a match, and below it is not', () => {
    expect(compareFaces([8], [0], 0.6)).toEqual({ similarity: 0.667, threshold: 0.6, match: true });
    expect(compareFaces([8], [0], 0.7)).toEqual({ similarity: 0.667, threshold: 0.7, match: false });
  });

  it('when no threshold is given, then the provisional constant is used', () => {
    expect(compareFaces(buildEmbedding(1), buildEmbedding(1)).threshold).toBe(FACE_MATCH_THRESHOLD);
  });
});
