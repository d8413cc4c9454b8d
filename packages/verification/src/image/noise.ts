import type { GreyRaster } from './raster';

/**
 * A crop's noise level in grey levels (σ of additive Gaussian noise), by Immerkær's estimator ("Fast
 * Noise Variance Estimation", Computer Vision and Image Understanding 64(2), 1996): the mean absolute
 * response to a 3×3 mask that cancels a plane and a ramp, σ = √(π/2) · mean|I ∗ N| / 6 with
 * N = [1 −2 1; −2 4 −2; 1 −2 1]. Edges add to it as well as noise: on an MRZ's crop at the OCR's width,
 * stretched to the full range, sharp ordinary photos measure 1–5 and dim ones whose sensor noise the
 * stretch has multiplied 5–24 (corpus seed 6001; docs/documents.md "Reading images").
 */
export function noiseSigma(raster: GreyRaster): number {
  const { data, width, height } = raster;
  if (width < 3 || height < 3) return 0;
  let sum = 0;
  for (let y = 1; y < height - 1; y += 1) {
    const row = y * width;
    for (let x = 1; x < width - 1; x += 1) {
      const at = row + x;
      const response =
        (data[at - width - 1] ?? 0) -
        2 * (data[at - width] ?? 0) +
        (data[at - width + 1] ?? 0) -
        2 * (data[at - 1] ?? 0) +
        4 * (data[at] ?? 0) -
        2 * (data[at + 1] ?? 0) +
        (data[at + width - 1] ?? 0) -
        2 * (data[at + width] ?? 0) +
        (data[at + width + 1] ?? 0);
      sum += Math.abs(response);
    }
  }
  return (Math.sqrt(Math.PI / 2) * sum) / (6 * (width - 2) * (height - 2));
}
