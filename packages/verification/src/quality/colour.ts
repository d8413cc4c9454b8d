import { laplacianOf } from './measures';
import type { PixelBox, RgbPixels } from './pixels';

const { abs, max, min, sqrt } = Math;

/**
 * Colour and tone statistics of the document's box. A display re-emits the photo through its own tone
 * curve and white point (raised blacks, a bluish or greenish white, saturation pushed up or down); a
 * print lays inks on a paper whose white is warm and whose blacks are never black. Its fine colour
 * structure differs too: sub-pixel stripes and CMY dots put colour into detail that a camera photo of
 * a card only has at edges.
 */
export interface ColourFeatures {
  /** Mean HSV saturation of pixels that are not near black. */
  saturation: number;
  /** 2nd percentile of luma: how black the blacks are. */
  black_level: number;
  /** 98th percentile of luma. */
  white_level: number;
  /** (B − R) / luma in the brightest tenth of the pixels: the white point's cast (+ blue, − yellow). */
  white_cast: number;
  /** RMS of the chroma (B − R) Laplacian over the RMS of the luma Laplacian: colour in the fine detail. */
  chroma_detail: number;
  /** The same along the green–magenta axis, G − (R + B) / 2 (pixels.ts `ChromaAxis`). */
  magenta_detail: number;
  /**
   * The same at the luma's edges, less what flat areas show: sensor noise and JPEG put colour into every
   * pixel, more so in a dim or blurred photo where the luma detail is weak, whereas a display's sub-pixel
   * fringes sit where the luma changes. √((C_edge − C_flat) / (L_edge − L_flat)) with C, L the mean
   * squared chroma and luma Laplacians over the 5% of pixels with the strongest luma Laplacian (edge) and
   * the weaker half (flat).
   */
  edge_chroma: number;
  /** `black_level` over `white_level`: a raised black that the exposure does not explain. */
  black_ratio: number;
}

/** |luma Laplacian| is binned in quarter levels up to this many bins to find its quantiles cheaply. */
const LAPLACIAN_BINS = 1024;
const laplacianBin = (value: number): number => min(LAPLACIAN_BINS - 1, (abs(value) * 4) | 0);

export function colourFeatures(pixels: RgbPixels, box: PixelBox): ColourFeatures {
  const { rgb, luma, chroma, width } = pixels;
  const histogram = new Uint32Array(256);
  let saturationSum = 0;
  let saturationCount = 0;
  let count = 0;
  for (let y = box.y0; y < box.y1; y += 2) {
    for (let x = box.x0; x < box.x1; x += 2) {
      const offset = (y * width + x) * 3;
      const r = rgb[offset] ?? 0;
      const g = rgb[offset + 1] ?? 0;
      const b = rgb[offset + 2] ?? 0;
      const high = max(r, g, b);
      if (high > 40) {
        saturationSum += (high - min(r, g, b)) / high;
        saturationCount += 1;
      }
      const level = min(255, max(0, (luma[y * width + x] ?? 0) | 0));
      histogram[level] = (histogram[level] ?? 0) + 1;
      count += 1;
    }
  }
  const quantile = (q: number): number => {
    const target = q * count;
    let seen = 0;
    for (let level = 0; level < 256; level += 1) {
      seen += histogram[level] ?? 0;
      if (seen >= target) return level;
    }
    return 255;
  };
  const brightFloor = quantile(0.9);
  let castSum = 0;
  let castCount = 0;
  let chromaSquares = 0;
  let magentaSquares = 0;
  let lumaSquares = 0;
  // Per bin of |luma Laplacian|: count, summed squared chroma and luma Laplacians.
  const binCount = new Float64Array(LAPLACIAN_BINS);
  const binChroma = new Float64Array(LAPLACIAN_BINS);
  const binLuma = new Float64Array(LAPLACIAN_BINS);
  for (let y = box.y0 + 1; y < box.y1 - 1; y += 2) {
    for (let x = box.x0 + 1; x < box.x1 - 1; x += 2) {
      const index = y * width + x;
      const value = luma[index] ?? 0;
      if (value >= brightFloor && value > 0) {
        castSum += (chroma.blue_red[index] ?? 0) / value;
        castCount += 1;
      }
      const chromaLaplacian = laplacianOf(chroma.blue_red, index, width);
      const magentaLaplacian = laplacianOf(chroma.green_magenta, index, width);
      const lumaLaplacian = laplacianOf(luma, index, width);
      chromaSquares += chromaLaplacian * chromaLaplacian;
      magentaSquares += magentaLaplacian * magentaLaplacian;
      lumaSquares += lumaLaplacian * lumaLaplacian;
      const bin = laplacianBin(lumaLaplacian);
      binCount[bin] = (binCount[bin] ?? 0) + 1;
      binChroma[bin] = (binChroma[bin] ?? 0) + chromaLaplacian * chromaLaplacian;
      binLuma[bin] = (binLuma[bin] ?? 0) + lumaLaplacian * lumaLaplacian;
    }
  }
  const edgeChroma = (): number => {
    let total = 0;
    for (let bin = 0; bin < LAPLACIAN_BINS; bin += 1) total += binCount[bin] ?? 0;
    if (total === 0) return 0;
    const flat = { count: 0, chroma: 0, luma: 0 };
    const edge = { count: 0, chroma: 0, luma: 0 };
    let seen = 0;
    for (let bin = 0; bin < LAPLACIAN_BINS; bin += 1) {
      const count = binCount[bin] ?? 0;
      const part = seen < 0.5 * total ? flat : seen >= 0.95 * total ? edge : null;
      seen += count;
      if (part === null) continue;
      part.count += count;
      part.chroma += binChroma[bin] ?? 0;
      part.luma += binLuma[bin] ?? 0;
    }
    if (flat.count === 0 || edge.count === 0) return 0;
    const lumaContrast = edge.luma / edge.count - flat.luma / flat.count;
    const chromaContrast = edge.chroma / edge.count - flat.chroma / flat.count;
    return lumaContrast <= 0 ? 0 : sqrt(max(0, chromaContrast) / lumaContrast);
  };
  const blackLevel = quantile(0.02);
  const whiteLevel = quantile(0.98);
  return {
    saturation: saturationCount === 0 ? 0 : saturationSum / saturationCount,
    black_level: blackLevel,
    white_level: whiteLevel,
    white_cast: castCount === 0 ? 0 : castSum / castCount,
    chroma_detail: lumaSquares === 0 ? 0 : sqrt(chromaSquares / lumaSquares),
    magenta_detail: lumaSquares === 0 ? 0 : sqrt(magentaSquares / lumaSquares),
    edge_chroma: edgeChroma(),
    black_ratio: blackLevel / max(1, whiteLevel),
  };
}
