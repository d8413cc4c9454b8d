import type { PixelBox, RgbPixels } from './pixels';

const { max, min, sqrt } = Math;

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
  /** RMS of the chroma Laplacian over the RMS of the luma Laplacian: colour in the fine detail. */
  chroma_detail: number;
}

function chromaAt(rgb: Uint8Array, index: number): number {
  return (rgb[index * 3 + 2] ?? 0) - (rgb[index * 3] ?? 0);
}

export function colourFeatures(pixels: RgbPixels, box: PixelBox): ColourFeatures {
  const { rgb, luma, width } = pixels;
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
  let lumaSquares = 0;
  for (let y = box.y0 + 1; y < box.y1 - 1; y += 2) {
    for (let x = box.x0 + 1; x < box.x1 - 1; x += 2) {
      const index = y * width + x;
      const offset = index * 3;
      const value = luma[index] ?? 0;
      if (value >= brightFloor && value > 0) {
        castSum += ((rgb[offset + 2] ?? 0) - (rgb[offset] ?? 0)) / value;
        castCount += 1;
      }
      const chromaLaplacian =
        chromaAt(rgb, index - 1) +
        chromaAt(rgb, index + 1) +
        chromaAt(rgb, index - width) +
        chromaAt(rgb, index + width) -
        4 * chromaAt(rgb, index);
      const lumaLaplacian =
        (luma[index - 1] ?? 0) + (luma[index + 1] ?? 0) + (luma[index - width] ?? 0) + (luma[index + width] ?? 0) - 4 * value;
      chromaSquares += chromaLaplacian * chromaLaplacian;
      lumaSquares += lumaLaplacian * lumaLaplacian;
    }
  }
  return {
    saturation: saturationCount === 0 ? 0 : saturationSum / saturationCount,
    black_level: quantile(0.02),
    white_level: quantile(0.98),
    white_cast: castCount === 0 ? 0 : castSum / castCount,
    chroma_detail: lumaSquares === 0 ? 0 : sqrt(chromaSquares / lumaSquares),
  };
}
