import { RECTIFY_STRIPS } from '../calibration/mrz';
import type { Point, Quad } from '../image/geometry';
import type { GreyRaster } from '../image/raster';
import { inkMask } from './ink';

/**
 * Straightens an MRZ band photographed at an angle to the card (perspective) before OCR.
 *
 * Under perspective the zone's lines are straight but no longer parallel, and one end of the zone is
 * larger than the other: a rectangular crop either cuts a line's far end off (the corpus's keystoned
 * photos lost the third line's bottom half) or shows the OCR characters slanted and shrinking along the
 * line, and the legacy engine then misreads the names (which no check digit covers). A plane's image is a
 * homography of it, and four points fix one: every MRZ line holds the same number of monospaced
 * characters, left-aligned, so the first and last character of the top line and of the bottom line are
 * the corners of a rectangle on the card. They are found in the pixels (each line's centre traced
 * across the band, fitted by a straight line, and its inked extent along that line), and the band is
 * resampled onto that rectangle.
 */
export interface MrzLineFit {
  /** y = intercept + slope · x, in the band's pixels (line centre). */
  intercept: number;
  slope: number;
  /** The first and last inked x along the line (the line's first and last characters). */
  left: number;
  right: number;
}

export interface MrzBandGeometry {
  lines: MrzLineFit[];
  /** Mean distance between neighbouring lines' centres (px). */
  pitch: number;
  /** The largest difference between two lines' directions (degrees): how far from parallel they are. */
  convergence_deg: number;
  /** The mean direction of the lines (degrees, clockwise): the tilt left in the band. */
  tilt_deg: number;
  /** Longest over shortest line length: one end of the zone nearer the camera than the other. */
  length_ratio: number;
}

function yAt(line: Pick<MrzLineFit, 'intercept' | 'slope'>, x: number): number {
  return line.intercept + line.slope * x;
}

/** Weighted least squares fit of y = a + b·x; null when the points do not spread over x. */
export function fitLine(points: readonly { x: number; y: number; w: number }[]): { intercept: number; slope: number } | null {
  let sw = 0;
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let sxy = 0;
  for (const { x, y, w } of points) {
    sw += w;
    sx += w * x;
    sy += w * y;
    sxx += w * x * x;
    sxy += w * x * y;
  }
  const denominator = sw * sxx - sx * sx;
  if (sw <= 0 || Math.abs(denominator) < 1e-9) return null;
  const slope = (sw * sxy - sx * sy) / denominator;
  return { intercept: (sy - slope * sx) / sw, slope };
}

/**
 * Traces the MRZ lines across a band (a crop around the located block, the lines roughly horizontal)
 * and measures them. `block` is where the locator put the lines (top, count, height per line, in the
 * band's pixels). Null when the lines cannot be traced consistently: the caller then reads the plain
 * crop.
 */
export function measureMrzBand(
  band: GreyRaster,
  block: { top: number; lines: number; line_height: number },
): MrzBandGeometry | null {
  const lineCount = block.lines;
  const lineHeight = block.line_height;
  const { width, height } = band;
  if (lineCount < 2 || lineHeight < 4 || width < 100) return null;
  const ink = inkMask(band, { radius: Math.max(3, Math.round(lineHeight * 0.6)) });

  // Per strip, ink per row.
  const stripWidth = width / RECTIFY_STRIPS;
  const profiles: Float64Array[] = [];
  for (let strip = 0; strip < RECTIFY_STRIPS; strip += 1) {
    const profile = new Float64Array(height);
    const x0 = Math.floor(strip * stripWidth);
    const x1 = Math.floor((strip + 1) * stripWidth);
    for (let y = 0; y < height; y += 1) {
      let count = 0;
      for (let x = x0; x < x1; x += 1) count += ink[y * width + x] ?? 0;
      profile[y] = count;
    }
    profiles.push(profile);
  }

  // The starting positions: the located block split into its lines, each centred on the band's ink.
  const whole = new Float64Array(height);
  for (const profile of profiles) for (let y = 0; y < height; y += 1) whole[y] = (whole[y] ?? 0) + (profile[y] ?? 0);
  const starts = Array.from({ length: lineCount }, (_, index) => block.top + lineHeight * (index + 0.5));
  // Centre each starting line on the whole band's ink (twice: the first pass moves it most of the way).
  for (let pass = 0; pass < 2; pass += 1) {
    for (let index = 0; index < lineCount; index += 1)
      starts[index] = centroid(whole, height, starts[index] ?? 0, lineHeight * 0.5).y;
  }

  const trace = (start: number) => traceLine(profiles, stripWidth, start, lineHeight);
  const lines: MrzLineFit[] = [];
  for (const start of starts) {
    const fit = trace(start);
    if (fit === null) return null;
    const extent = inkedExtent(ink, width, height, fit, lineHeight);
    if (extent === null) return null;
    lines.push({ ...fit, ...extent });
  }

  // The locator may have missed a line (under a keystone a line slants across the rows it counts): a
  // line one pitch below the last (or above the first), as long as the others and traced across the
  // band, belongs to the zone. Three lines at most (TD1).
  const lengthOf = (line: MrzLineFit) => line.right - line.left;
  const extend = (from: MrzLineFit, other: MrzLineFit, place: 'below' | 'above') => {
    if (lines.length >= 3) return;
    const centre = width / 2;
    const step = yAt(from, centre) - yAt(other, centre);
    const predicted = yAt(from, centre) + step;
    if (predicted < lineHeight * 0.5 || predicted > height - lineHeight * 0.5) return;
    const fit = trace(predicted);
    if (fit === null || Math.abs(yAt(fit, centre) - predicted) > Math.abs(step) * 0.3) return;
    const extent = inkedExtent(ink, width, height, fit, lineHeight);
    if (extent === null) return;
    const line = { ...fit, ...extent };
    const reference = lengthOf(from);
    if (Math.abs(lengthOf(line) - reference) > reference * 0.1 || Math.abs(line.left - from.left) > reference * 0.06) return;
    if (place === 'below') lines.push(line);
    else lines.unshift(line);
  };
  const last = lines[lines.length - 1];
  const beforeLast = lines[lines.length - 2];
  if (last !== undefined && beforeLast !== undefined) extend(last, beforeLast, 'below');
  const first = lines[0];
  const second = lines[1];
  if (first !== undefined && second !== undefined) extend(first, second, 'above');

  // Lines must come in order, about evenly spaced, and not cross inside the band.
  const centre = width / 2;
  const gaps: number[] = [];
  for (let index = 1; index < lines.length; index += 1) {
    const above = lines[index - 1];
    const below = lines[index];
    if (above === undefined || below === undefined) return null;
    for (const x of [0, centre, width]) if (yAt(below, x) - yAt(above, x) < lineHeight * 0.6) return null;
    gaps.push(yAt(below, centre) - yAt(above, centre));
  }
  const pitch = gaps.reduce((sum, gap) => sum + gap, 0) / gaps.length;
  if (gaps.some((gap) => gap < pitch * 0.75 || gap > pitch * 1.25)) return null;
  // Every line starts and ends under the one above (a keystone shifts them by far less than a line's
  // pitch): an end that does not is a line whose filler run was lost to glare or blur, and warping
  // from it would cut the line (seed 7, a TD3 read cut short).
  for (let index = 1; index < lines.length; index += 1) {
    const above = lines[index - 1];
    const below = lines[index];
    if (above === undefined || below === undefined) return null;
    if (Math.abs(above.left - below.left) > pitch || Math.abs(above.right - below.right) > pitch) return null;
  }

  const angles = lines.map((line) => (Math.atan(line.slope) * 180) / Math.PI);
  const lengths = lines.map((line) => (line.right - line.left) * Math.hypot(1, line.slope));
  const shortest = Math.min(...lengths);
  if (shortest < width * 0.4) return null;
  return {
    lines,
    pitch,
    convergence_deg: Math.max(...angles) - Math.min(...angles),
    tilt_deg: angles.reduce((sum, angle) => sum + angle, 0) / angles.length,
    length_ratio: Math.max(...lengths) / shortest,
  };
}

/** A level MRZ line: its centre row, and its first and last inked column (its first and last characters' ink). */
export interface MrzLineExtent {
  centreY: number;
  left: number;
  right: number;
}

/**
 * The lines of a zone whose lines could not be traced (`measureMrzBand` gave null: a blurred zone's
 * lines run into each other strip by strip), taken as level: each line's centre is the ink-weighted
 * centre of the whole band's rows near the block's line, and its extent the longest inked run along that
 * row. Null when a line holds no ink.
 */
export function levelMrzLines(
  band: GreyRaster,
  block: { top: number; lines: number; line_height: number },
): MrzLineExtent[] | null {
  const { width, height } = band;
  const lineHeight = block.line_height;
  if (block.lines < 2 || lineHeight < 4 || width < 100) return null;
  const ink = inkMask(band, { radius: Math.max(3, Math.round(lineHeight * 0.6)) });
  const rows = new Float64Array(height);
  for (let y = 0; y < height; y += 1) {
    let count = 0;
    for (let x = 0; x < width; x += 1) count += ink[y * width + x] ?? 0;
    rows[y] = count;
  }
  const lines: MrzLineExtent[] = [];
  for (let index = 0; index < block.lines; index += 1) {
    let centre = block.top + lineHeight * (index + 0.5);
    for (let pass = 0; pass < 2; pass += 1) centre = centroid(rows, height, centre, lineHeight * 0.5).y;
    const extent = inkedExtent(ink, width, height, { intercept: centre, slope: 0 }, lineHeight);
    if (extent === null) return null;
    lines.push({ centreY: centre, ...extent });
  }
  return lines;
}

/**
 * One line's centre traced from the band's middle strip outwards (each strip's ink-weighted centroid
 * near where the points already found predict it), then fitted by a straight line with the strips that
 * strayed (a stamp, the line above) left out. Null when too few strips hold the line.
 */
function traceLine(
  profiles: readonly Float64Array[],
  stripWidth: number,
  start: number,
  lineHeight: number,
): { intercept: number; slope: number } | null {
  const height = profiles[0]?.length ?? 0;
  const minimumMass = stripWidth * lineHeight * 0.04;
  const middle = Math.floor(RECTIFY_STRIPS / 2);
  const points: { x: number; y: number; w: number }[] = [];
  for (const direction of [1, -1]) {
    let current = start;
    for (let strip = direction === 1 ? middle : middle - 1; strip >= 0 && strip < RECTIFY_STRIPS; strip += direction) {
      const profile = profiles[strip];
      if (profile === undefined) continue;
      const x = (strip + 0.5) * stripWidth;
      const fit = points.length >= 3 ? fitLine(points) : null;
      const predicted = fit === null ? current : yAt(fit, x);
      let found = centroid(profile, height, predicted, lineHeight * 0.5);
      found = centroid(profile, height, found.y, lineHeight * 0.45);
      if (found.mass < minimumMass) continue;
      points.push({ x, y: found.y, w: found.mass });
      current = found.y;
    }
  }
  if (points.length < RECTIFY_STRIPS / 2) return null;
  const fit = fitLine(points);
  if (fit === null) return null;
  const kept = points.filter((point) => Math.abs(point.y - yAt(fit, point.x)) < lineHeight * 0.25);
  if (kept.length < RECTIFY_STRIPS / 2) return null;
  return fitLine(kept);
}

/** The ink-weighted centre of a profile's rows within `window` of `predicted`, and the ink there. */
function centroid(profile: Float64Array, height: number, predicted: number, window: number): { y: number; mass: number } {
  let mass = 0;
  let moment = 0;
  const from = Math.max(0, Math.round(predicted - window));
  const to = Math.min(height - 1, Math.round(predicted + window));
  for (let y = from; y <= to; y += 1) {
    const value = profile[y] ?? 0;
    mass += value;
    moment += value * y;
  }
  return { y: mass > 0 ? moment / mass : predicted, mass };
}

/**
 * The longest run of inked columns along a fitted line (within ±0.4 line heights of it), bridging gaps
 * narrower than a character: the MRZ line from its first character to its last, fillers included.
 */
function inkedExtent(
  ink: Uint8Array,
  width: number,
  height: number,
  line: { intercept: number; slope: number },
  lineHeight: number,
): { left: number; right: number } | null {
  const half = lineHeight * 0.4;
  const occupied = new Uint8Array(width);
  for (let x = 0; x < width; x += 1) {
    const centre = yAt(line, x);
    const from = Math.max(0, Math.round(centre - half));
    const to = Math.min(height - 1, Math.round(centre + half));
    for (let y = from; y <= to; y += 1) {
      if (ink[y * width + x] === 1) {
        occupied[x] = 1;
        break;
      }
    }
  }
  const maxGap = lineHeight * 0.9;
  let best: { left: number; right: number } | null = null;
  let start = -1;
  let last = -1;
  for (let x = 0; x <= width; x += 1) {
    if (x < width && occupied[x] === 1) {
      if (start === -1 || x - last > maxGap) {
        if (start !== -1 && (best === null || last - start > best.right - best.left)) best = { left: start, right: last };
        start = x;
      }
      last = x;
    }
  }
  if (start !== -1 && (best === null || last - start > best.right - best.left)) best = { left: start, right: last };
  return best;
}

/** A 3×3 homography, row-major, mapping (x, y, 1). */
export type Homography = [number, number, number, number, number, number, number, number, number];

/** The homography taking each `from` corner to the same `to` corner (the 8×8 linear system, h33 = 1). */
export function homographyBetween(from: Quad, to: Quad): Homography | null {
  const pairs: [Point, Point][] = [
    [from.topLeft, to.topLeft],
    [from.topRight, to.topRight],
    [from.bottomRight, to.bottomRight],
    [from.bottomLeft, to.bottomLeft],
  ];
  const rows: number[][] = [];
  for (const [source, target] of pairs) {
    rows.push([source.x, source.y, 1, 0, 0, 0, -source.x * target.x, -source.y * target.x, target.x]);
    rows.push([0, 0, 0, source.x, source.y, 1, -source.x * target.y, -source.y * target.y, target.y]);
  }
  // Gauss–Jordan elimination with partial pivoting.
  for (let column = 0; column < 8; column += 1) {
    let pivot = column;
    for (let row = column + 1; row < 8; row += 1) {
      if (Math.abs(rows[row]?.[column] ?? 0) > Math.abs(rows[pivot]?.[column] ?? 0)) pivot = row;
    }
    const pivotRow = rows[pivot];
    if (pivotRow === undefined || Math.abs(pivotRow[column] ?? 0) < 1e-12) return null;
    rows[pivot] = rows[column] ?? [];
    rows[column] = pivotRow;
    const divisor = pivotRow[column] ?? 1;
    for (let k = column; k < 9; k += 1) pivotRow[k] = (pivotRow[k] ?? 0) / divisor;
    for (let row = 0; row < 8; row += 1) {
      const current = rows[row];
      if (row === column || current === undefined) continue;
      const factor = current[column] ?? 0;
      if (factor === 0) continue;
      for (let k = column; k < 9; k += 1) current[k] = (current[k] ?? 0) - factor * (pivotRow[k] ?? 0);
    }
  }
  const h = rows.map((row) => row[8] ?? 0);
  return [h[0] ?? 0, h[1] ?? 0, h[2] ?? 0, h[3] ?? 0, h[4] ?? 0, h[5] ?? 0, h[6] ?? 0, h[7] ?? 0, 1];
}

export function applyHomography(h: Homography, point: Point): Point {
  const w = h[6] * point.x + h[7] * point.y + h[8];
  return { x: (h[0] * point.x + h[1] * point.y + h[2]) / w, y: (h[3] * point.x + h[4] * point.y + h[5]) / w };
}

/**
 * Resamples `source` into a `width`×`height` image: each output pixel takes the bilinear value at
 * `outputToSource` of it (white outside the source, a card's margin).
 */
export function warpGrey(source: GreyRaster, outputToSource: Homography, width: number, height: number): GreyRaster {
  const data = Buffer.alloc(width * height);
  const { width: sw, height: sh, data: pixels } = source;
  const pixel = (x: number, y: number) => (x < 0 || y < 0 || x >= sw || y >= sh ? 255 : (pixels[y * sw + x] ?? 255));
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const at = applyHomography(outputToSource, { x: x + 0.5, y: y + 0.5 });
      const fx = at.x - 0.5;
      const fy = at.y - 0.5;
      const x0 = Math.floor(fx);
      const y0 = Math.floor(fy);
      const dx = fx - x0;
      const dy = fy - y0;
      const top = pixel(x0, y0) * (1 - dx) + pixel(x0 + 1, y0) * dx;
      const bottom = pixel(x0, y0 + 1) * (1 - dx) + pixel(x0 + 1, y0 + 1) * dx;
      data[y * width + x] = Math.round(top * (1 - dy) + bottom * dy);
    }
  }
  return { data, width, height };
}

export interface RectifiedBand {
  raster: GreyRaster;
  /** Output pixels → the band's pixels (to place what OCR found back on the photo). */
  toBand: Homography;
  /** The lines as they stand in the output, top line first (every one spans the same columns). */
  lines: MrzLineExtent[];
}

/**
 * The band resampled so that its lines are horizontal, parallel and as long as each other, `width` px
 * wide with a margin of a few characters and about a line's pitch above the first line and below the
 * last. The character aspect is kept as measured in the middle of the band.
 */
export function rectifyMrzBand(band: GreyRaster, geometry: MrzBandGeometry, width: number): RectifiedBand | null {
  const top = geometry.lines[0];
  const bottom = geometry.lines[geometry.lines.length - 1];
  if (top === undefined || bottom === undefined) return null;
  const source: Quad = {
    topLeft: { x: top.left, y: yAt(top, top.left) },
    topRight: { x: top.right, y: yAt(top, top.right) },
    bottomRight: { x: bottom.right, y: yAt(bottom, bottom.right) },
    bottomLeft: { x: bottom.left, y: yAt(bottom, bottom.left) },
  };
  const margin = Math.round(width * 0.04);
  const lineLength =
    geometry.lines.reduce((sum, line) => sum + (line.right - line.left) * Math.hypot(1, line.slope), 0) / geometry.lines.length;
  const scale = (width - 2 * margin) / Math.max(1, lineLength);
  const pitch = geometry.pitch * scale;
  const spans = geometry.lines.length - 1;
  const height = Math.round(pitch * (spans + 2));
  const target: Quad = {
    topLeft: { x: margin, y: pitch },
    topRight: { x: width - margin, y: pitch },
    bottomRight: { x: width - margin, y: pitch * (spans + 1) },
    bottomLeft: { x: margin, y: pitch * (spans + 1) },
  };
  const toBand = homographyBetween(target, source);
  if (toBand === null || height < 8) return null;
  return {
    raster: warpGrey(band, toBand, width, height),
    toBand,
    lines: geometry.lines.map((_, index) => ({ centreY: pitch * (index + 1), left: margin, right: width - margin })),
  };
}
