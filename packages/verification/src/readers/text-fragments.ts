import { LABEL_DROP } from '../calibration/printed';
import type { GreyRaster, PixelRegion } from '../image/raster';
import { inkMask } from './ink';

/**
 * Runs of printed text on a card, found in the pixels: a label ("Apellido / Surname"), a value
 * ("VILLAREAL"), a column's entry ("ARGENTINA"). Ink (`inkMask`, darker than its own surroundings) is
 * joined along each row across gaps narrower than `gapPx` (the space between two letters or words of
 * one run, not the wide gap between two columns of the card), and each connected patch of it is a
 * fragment, kept when it is shaped like a line of text of about `textPx` letters.
 */
export interface TextFragment {
  /** Pixel box in the raster searched, right and bottom exclusive. */
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export interface FragmentOptions {
  /** The height of the smallest letters looked for (a label's capitals), px. */
  textPx: number;
  /** Patches taller than this are not text (a photo's edge, a seal), px. */
  maxHeightPx: number;
  /** Boxes of the raster whose ink is not text (the barcode the card was found by): left out before runs are joined. */
  blank?: readonly PixelRegion[];
  /** Patches more than this many times as wide as tall are not a line of the card's print (its edge, a shadow). */
  widestAspect?: number;
}

export function textFragments(raster: GreyRaster, region: PixelRegion, options: FragmentOptions): TextFragment[] {
  const { left, top, width, height } = region;
  if (width < 8 || height < 8) return [];
  const window = Buffer.alloc(width * height);
  for (let y = 0; y < height; y += 1)
    raster.data.copy(window, y * width, (top + y) * raster.width + left, (top + y) * raster.width + left + width);
  const mask = inkMask({ data: window, width, height }, { radius: Math.max(2, options.textPx), drop: LABEL_DROP });

  for (const box of options.blank ?? []) {
    const x0 = Math.max(0, box.left - left);
    const x1 = Math.min(width, box.left + box.width - left);
    for (let y = Math.max(0, box.top - top); y < Math.min(height, box.top + box.height - top); y += 1)
      if (x1 > x0) mask.fill(0, y * width + x0, y * width + x1);
  }
  // Joined along rows: a gap of up to `gap` pixels between two inked pixels of a row is filled.
  const gap = Math.max(2, Math.round(options.textPx * 1.6));
  const joined = new Uint8Array(width * height);
  for (let y = 0; y < height; y += 1) {
    const row = y * width;
    let lastInk = -1;
    for (let x = 0; x < width; x += 1) {
      if (mask[row + x] !== 1) continue;
      if (lastInk >= 0 && x - lastInk <= gap) joined.fill(1, row + lastInk, row + x + 1);
      else joined[row + x] = 1;
      lastInk = x;
    }
  }

  // Connected patches (4-neighbours), each as its bounding box.
  const labels = new Int32Array(width * height).fill(-1);
  const patches: (TextFragment & { isText: boolean })[] = [];
  const stack: number[] = [];
  for (let start = 0; start < joined.length; start += 1) {
    if (joined[start] !== 1 || labels[start] !== -1) continue;
    let x0 = width;
    let y0 = height;
    let x1 = -1;
    let y1 = -1;
    const id = patches.length;
    labels[start] = id;
    stack.push(start);
    while (stack.length > 0) {
      const index = stack.pop()!;
      const x = index % width;
      const y = (index - x) / width;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
      const visit = (next: number) => {
        if (joined[next] === 1 && labels[next] === -1) {
          labels[next] = id;
          stack.push(next);
        }
      };
      if (x > 0) visit(index - 1);
      if (x < width - 1) visit(index + 1);
      if (y > 0) visit(index - width);
      if (y < height - 1) visit(index + width);
    }
    // A patch taller than a line of small text may be lines joined by something crossing them (the 2012
    // card's seal over the issue and expiry rows, a stroke of a signature): it is cut at the rows where its
    // ink thins out, and each band kept as a line of its own. Between two lines only the crossing strokes
    // are left (under a tenth of the densest row's ink); the bold number's digits thin out at their tops to
    // a fifth, and are not cut. A patch taller than any line is cut at a quarter.
    const tall = y1 - y0 + 1;
    const bands =
      tall > options.maxHeightPx
        ? rowBands(labels, id, width, x0, x1, y0, y1, options.textPx * 0.6, 0.25)
        : tall > options.textPx * 2.5
          ? rowBands(labels, id, width, x0, x1, y0, y1, options.textPx * 0.6, 0.1)
          : [{ y0, y1 }];
    for (const band of bands) {
      let bandLeft = x1;
      let bandRight = x0;
      let count = 0;
      for (let y = band.y0; y <= band.y1; y += 1) {
        for (let x = x0; x <= x1; x += 1) {
          if (labels[y * width + x] !== id) continue;
          count += 1;
          if (x < bandLeft) bandLeft = x;
          if (x > bandRight) bandRight = x;
        }
      }
      const boxHeight = band.y1 - band.y0 + 1;
      const boxWidth = bandRight - bandLeft + 1;
      // Text is at least as tall as half the smallest letters, no taller than the largest, and a run of
      // letters is wider than tall unless it is one letter (a sex, a series: "F", "A"). Its joined ink
      // fills a good share of its box, where a signature's or a seal's strokes do not.
      const isText =
        boxHeight >= options.textPx * 0.5 &&
        boxHeight <= options.maxHeightPx &&
        boxWidth >= boxHeight * 0.4 &&
        boxWidth <= boxHeight * (options.widestAspect ?? Infinity) &&
        count >= boxWidth * boxHeight * 0.3;
      patches.push({ left: left + bandLeft, top: top + band.y0, right: left + bandRight + 1, bottom: top + band.y1 + 1, isText });
    }
    if (bands.length === 0)
      patches.push({ left: left + x0, top: top + y0, right: left + x1 + 1, bottom: top + y1 + 1, isText: false });
  }
  return patches.filter((patch) => patch.isText).map(({ isText: _isText, ...fragment }) => fragment);
}

/** The bands of rows of patch `id` (inside its box) where its ink reaches `share` of its densest row's, at least `minHeight` tall. */
function rowBands(
  labels: Int32Array,
  id: number,
  width: number,
  x0: number,
  x1: number,
  y0: number,
  y1: number,
  minHeight: number,
  share: number,
): { y0: number; y1: number }[] {
  const ink: number[] = [];
  for (let y = y0; y <= y1; y += 1) {
    let count = 0;
    for (let x = x0; x <= x1; x += 1) if (labels[y * width + x] === id) count += 1;
    ink.push(count);
  }
  const floor = share * Math.max(...ink);
  const bands: { y0: number; y1: number }[] = [];
  let start = -1;
  for (let row = 0; row <= ink.length; row += 1) {
    const dense = row < ink.length && ink[row]! >= floor;
    if (dense && start === -1) start = row;
    if (!dense && start !== -1) {
      if (row - start >= minHeight) bands.push({ y0: y0 + start, y1: y0 + row - 1 });
      start = -1;
    }
  }
  return bands;
}
