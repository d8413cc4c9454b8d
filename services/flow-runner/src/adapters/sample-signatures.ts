import { existsSync, readFileSync } from 'node:fs';
import { perceptualSignature, signatureDistance } from '@idv/verification';

/** The folders of assets/ whose images are test-mode samples (the documents and the face sequences). */
export const SAMPLE_FOLDERS = ['samples', 'face-samples'] as const;

/**
 * A capture at most this far (`signatureDistance`) from a sample is that sample: halfway (geometrically)
 * between the farthest copy and the nearest other image, measured 2026-11-29 by
 * scripts/measure-sample-matching.mjs (--count 4, seed 4004; docs/documents.md "Test samples in live
 * mode"). Copies of the 36 signed samples re-encoded (JPEG 40–70, PNG), rescaled (×0.5, ×1.5) or
 * brightened 10%: at most 0.0040 from their sample (every one matched). The nearest other image to any
 * sample: 0.0856 (a 2012 DNI back of the corpus: the backs' design is most of their photo); other fronts
 * 0.166–0.372 and up, face-api's other demo faces 0.477 and up (0 of 188 matched). Crops of 3–6% and
 * turns (0.074 and more) are not matched: the check is against the samples sent as they are.
 */
export const SAMPLE_MATCH_DISTANCE = 0.02;

/** A signature with (nearly) no contrast: a blank frame, like any other blank frame. */
export function isFlatSignature(signature: string): boolean {
  const pixels = Buffer.from(signature, 'base64');
  let low = 255;
  let high = 0;
  for (const value of pixels) {
    low = Math.min(low, value);
    high = Math.max(high, value);
  }
  return high - low < 8;
}

interface SignatureFile {
  samples: { files: string[]; signature: string }[];
}

/**
 * The shipped test-mode samples' signatures (assets/sample-signatures.json, built with the samples by
 * scripts/build-sample-signatures.mjs): they are public, so in live mode a photo or a face frame that is
 * one of them (or a copy) stands for no one.
 */
export class SampleSignatures {
  private readonly signatures: string[];

  constructor(file: string) {
    this.signatures = existsSync(file)
      ? (JSON.parse(readFileSync(file, 'utf8')) as SignatureFile).samples.map((sample) => sample.signature)
      : [];
  }

  get size(): number {
    return this.signatures.length;
  }

  /** Whether any of the images is a sample (a copy of one); each image's signature is computed once. */
  async anyIsSample(images: readonly Buffer[]): Promise<boolean> {
    if (this.signatures.length === 0) return false;
    for (const image of images) {
      const signature = await perceptualSignature(image);
      if (this.signatures.some((sample) => signatureDistance(signature, sample) <= SAMPLE_MATCH_DISTANCE)) return true;
    }
    return false;
  }
}
