import type { FaceBox } from './engine';

/**
 * Replay cues measured on one camera frame around the face, made for 480–640 px frames: the recapture
 * model of @idv/verification was built for document photos and judges few frames that small (its
 * log-blur floor), so on face frames it rarely says anything. Each cue is a property a screen or a print
 * gives the light that reaches the camera, and a face in front of the camera does not:
 *
 * - `chromaDetail`: colour detail finer than 3 px relative to the luma detail. A screen's sub-pixel
 *   stripes and a print's ink dots that the optics do not fully blur leave colour fringes; skin and hair
 *   have almost none (JPEG's 4:2:0 chroma keeps little at that scale anyway).
 * - `fineToMid`: detail at 1–3 px against detail at 3–9 px. A replay is an image of an image: the
 *   recording's optics, its compression and the screen's resampling remove the finest detail first.
 * - `blackLift`: the frame's 1st luma percentile over its 99th. A screen's black leaks light and its
 *   glass reflects the room; paper reflects more than a shadow does.
 * - `saturation`: mean chroma over mean luma in the face box (displays and inks shift it).
 * - `periodicPeak`: the strongest non-JPEG peak of the face region's high-passed spectrum over the
 *   median (log10): moiré and visible pixel grids are periodic, faces are not.
 * - `straightEdge`: the strongest straight edge across the frame near its sides (within 10° of the
 *   frame's axes): the edge of a screen or of the paper when it does not fill the frame. A room has
 *   straight edges too (door frames, shelves), which the corpus's backgrounds do not: see docs/faces.md.
 * - `outline` (not a replay-model input; liveness.ts `OUTLINE_LIMIT`): the third strongest of the four
 *   sides' straight edges. A screen or a sheet held before the camera outlines the picture on three or
 *   four sides at once; a room's door frame or shelf lines one or two of them.
 *
 * None is decisive alone; `replayScore` (liveness.ts) weighs them with human's antispoof and liveness
 * scores, fitted on the face corpus (docs/faces.md "Spoof signals").
 */
export const SPOOF_FEATURE_NAMES = [
  'chromaDetail',
  'fineToMid',
  'blackLift',
  'saturation',
  'periodicPeak',
  'straightEdge',
] as const;
export type SpoofFeatureName = (typeof SPOOF_FEATURE_NAMES)[number];
export type SpoofFeatures = Record<SpoofFeatureName, number> & { outline: number };

interface Planes {
  width: number;
  height: number;
  y: Float32Array;
  cb: Float32Array;
  cr: Float32Array;
}

function planes(data: Uint8Array, width: number, height: number): Planes {
  const count = width * height;
  const y = new Float32Array(count);
  const cb = new Float32Array(count);
  const cr = new Float32Array(count);
  for (let index = 0; index < count; index += 1) {
    const r = data[index * 3] ?? 0;
    const g = data[index * 3 + 1] ?? 0;
    const b = data[index * 3 + 2] ?? 0;
    const luma = 0.299 * r + 0.587 * g + 0.114 * b;
    y[index] = luma;
    cb[index] = 0.564 * (b - luma);
    cr[index] = 0.713 * (r - luma);
  }
  return { width, height, y, cb, cr };
}

/**
 * Box mean of side 2·radius+1 (edges clamped), separable, through running sums. The vertical pass keeps
 * one running sum per column and walks the rows in order, so it reads memory the way it is laid out.
 */
function boxMean(plane: Float32Array, width: number, height: number, radius: number): Float32Array {
  const temp = new Float32Array(plane.length);
  const out = new Float32Array(plane.length);
  const side = 2 * radius + 1;
  const clampX = (x: number) => (x < 0 ? 0 : x >= width ? width - 1 : x);
  const clampY = (y: number) => (y < 0 ? 0 : y >= height ? height - 1 : y);
  // Where neither end of the window leaves the row, the clamps are the identity: the same sums without them.
  const innerFrom = Math.min(width, radius + 1);
  const innerTo = Math.max(innerFrom, width - radius);
  for (let y = 0; y < height; y += 1) {
    const row = y * width;
    let sum = 0;
    for (let x = -radius - 1; x < radius; x += 1) sum += plane[row + clampX(x)] ?? 0;
    for (let x = 0; x < innerFrom; x += 1) {
      sum += (plane[row + clampX(x + radius)] ?? 0) - (plane[row + clampX(x - radius - 1)] ?? 0);
      temp[row + x] = sum / side;
    }
    for (let x = innerFrom; x < innerTo; x += 1) {
      sum += (plane[row + x + radius] as number) - (plane[row + x - radius - 1] as number);
      temp[row + x] = sum / side;
    }
    for (let x = innerTo; x < width; x += 1) {
      sum += (plane[row + clampX(x + radius)] ?? 0) - (plane[row + clampX(x - radius - 1)] ?? 0);
      temp[row + x] = sum / side;
    }
  }
  const sums = new Float64Array(width);
  for (let y = -radius - 1; y < radius; y += 1) {
    const row = clampY(y) * width;
    for (let x = 0; x < width; x += 1) sums[x] = (sums[x] ?? 0) + (temp[row + x] ?? 0);
  }
  for (let y = 0; y < height; y += 1) {
    const added = clampY(y + radius) * width;
    const removed = clampY(y - radius - 1) * width;
    const row = y * width;
    for (let x = 0; x < width; x += 1) {
      const sum = (sums[x] ?? 0) + ((temp[added + x] ?? 0) - (temp[removed + x] ?? 0));
      sums[x] = sum;
      out[row + x] = sum / side;
    }
  }
  return out;
}

const TWIDDLES = new Map<number, [Float64Array, Float64Array]>();

/**
 * The FFT's factors cos/sin(−2π·k / length) for every stage of an `n`-point transform, stage after
 * stage (n − 1 of each), computed once per size with the very expression the butterflies used to
 * evaluate for every block: the same values, without 115,000 cos/sin calls a frame.
 */
function twiddles(n: number): [Float64Array, Float64Array] {
  const known = TWIDDLES.get(n);
  if (known !== undefined) return known;
  const cosines = new Float64Array(Math.max(0, n - 1));
  const sines = new Float64Array(Math.max(0, n - 1));
  for (let length = 2; length <= n; length <<= 1) {
    const angle = (-2 * Math.PI) / length;
    for (let k = 0; k < length / 2; k += 1) {
      cosines[length / 2 - 1 + k] = Math.cos(angle * k);
      sines[length / 2 - 1 + k] = Math.sin(angle * k);
    }
  }
  const tables: [Float64Array, Float64Array] = [cosines, sines];
  TWIDDLES.set(n, tables);
  return tables;
}

/** In-place radix-2 FFT of one line (length a power of two). */
function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i += 1) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j] ?? 0, re[i] ?? 0];
      [im[i], im[j]] = [im[j] ?? 0, im[i] ?? 0];
    }
  }
  const [cosines, sines] = twiddles(n);
  // A stage of butterflies of `length` reads its factors from `length / 2 - 1` on in the tables.
  for (let length = 2; length <= n; length <<= 1) {
    const half = length / 2;
    for (let start = 0; start < n; start += length) {
      for (let k = 0; k < half; k += 1) {
        const wr = cosines[half - 1 + k] as number;
        const wi = sines[half - 1 + k] as number;
        const a = start + k;
        const b = a + length / 2;
        const xr = (re[b] ?? 0) * wr - (im[b] ?? 0) * wi;
        const xi = (re[b] ?? 0) * wi + (im[b] ?? 0) * wr;
        re[b] = (re[a] ?? 0) - xr;
        im[b] = (im[a] ?? 0) - xi;
        re[a] = (re[a] ?? 0) + xr;
        im[a] = (im[a] ?? 0) + xi;
      }
    }
  }
}

const TILE = 128;

/**
 * The strongest spectral peak of a TILE² luma patch centred on the face, high-passed and windowed, over
 * the median power of its band (log10). Frequencies on JPEG's 8-px block grid (multiples of TILE/8
 * cycles on either axis) and the lowest ones (the face's own shape) are left out.
 */
function periodicPeak(y: Float32Array, smooth: Float32Array, width: number, height: number, box: FaceBox): number {
  const x0 = Math.round(Math.min(width - TILE, Math.max(0, box.x + box.width / 2 - TILE / 2)));
  const y0 = Math.round(Math.min(height - TILE, Math.max(0, box.y + box.height / 2 - TILE / 2)));
  if (x0 < 0 || y0 < 0) return 0;
  const re = new Float64Array(TILE * TILE);
  const im = new Float64Array(TILE * TILE);
  for (let row = 0; row < TILE; row += 1) {
    const wy = 0.5 - 0.5 * Math.cos((2 * Math.PI * (row + 0.5)) / TILE);
    for (let column = 0; column < TILE; column += 1) {
      const wx = 0.5 - 0.5 * Math.cos((2 * Math.PI * (column + 0.5)) / TILE);
      const index = (y0 + row) * width + x0 + column;
      re[row * TILE + column] = ((y[index] ?? 0) - (smooth[index] ?? 0)) * wx * wy;
    }
  }
  const lineRe = new Float64Array(TILE);
  const lineIm = new Float64Array(TILE);
  for (let row = 0; row < TILE; row += 1) {
    lineRe.set(re.subarray(row * TILE, (row + 1) * TILE));
    lineIm.fill(0);
    fft(lineRe, lineIm);
    re.set(lineRe, row * TILE);
    im.set(lineIm, row * TILE);
  }
  for (let column = 0; column < TILE; column += 1) {
    for (let row = 0; row < TILE; row += 1) {
      lineRe[row] = re[row * TILE + column] ?? 0;
      lineIm[row] = im[row * TILE + column] ?? 0;
    }
    fft(lineRe, lineIm);
    for (let row = 0; row < TILE; row += 1) {
      re[row * TILE + column] = lineRe[row] ?? 0;
      im[row * TILE + column] = lineIm[row] ?? 0;
    }
  }
  const block = TILE / 8;
  const powers: number[] = [];
  let peak = 0;
  // Half the plane (the spectrum of a real image is symmetric).
  for (let v = 0; v < TILE / 2; v += 1) {
    for (let u = -TILE / 2 + 1; u < TILE / 2; u += 1) {
      const radius = Math.hypot(u, v);
      if (radius < TILE / 16 || radius > TILE / 2) continue;
      if (u % block === 0 || v % block === 0) continue;
      const index = v * TILE + ((u + TILE) % TILE);
      const power = (re[index] ?? 0) ** 2 + (im[index] ?? 0) ** 2;
      powers.push(power);
      if (power > peak) peak = power;
    }
  }
  powers.sort((a, b) => a - b);
  const median = powers[Math.floor(powers.length / 2)] ?? 0;
  return median > 0 ? Math.log10(peak / median) : 0;
}

/**
 * The positions whose shift lies in [low, high], as [first, end): `shifts` is non-decreasing when
 * `rising`, non-increasing otherwise, so they are one run (empty: first = end).
 */
function insideRun(shifts: Int32Array, low: number, high: number, rising: boolean): [number, number] {
  const count = shifts.length;
  // The first position at or past the run's start, and the first past its end, by binary search.
  const firstWhere = (past: (shift: number) => boolean): number => {
    let lo = 0;
    let hi = count;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (past(shifts[mid] as number)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  const first = rising ? firstWhere((shift) => shift >= low) : firstWhere((shift) => shift <= high);
  const end = rising ? firstWhere((shift) => shift > high) : firstWhere((shift) => shift < low);
  return end > first ? [first, end] : [first, first];
}

/**
 * The strongest straight edge within 10° of the frame's axes in the outer 30% of each side, per side
 * (top, bottom, left, right): the mean signed gradient across the line (an edge's contrast keeps its
 * sign all along it; texture cancels), weighted by how much of the frame the line spans, over the
 * frame's mean gradient.
 */
function sideEdges(y: Float32Array, width: number, height: number): number[] {
  // The luma's difference across a line, both ways, once per pixel (a float32 difference is exact in a
  // float64): the line search below reads each sampled pixel's about 40 times. It samples every second
  // pixel along a line (`along` = 2, 4, …, length − 3), so only those are kept, one line after another
  // (line · count + position): the search then reads memory nearly in order, columns as well as rows.
  const countAlong = (length: number) => Math.max(0, Math.ceil((length - 4) / 2));
  const [countH, countV] = [countAlong(width), countAlong(height)];
  const acrossRows = new Float64Array(height * countH);
  const acrossColumns = new Float64Array(width * countV);
  let total = 0;
  for (let row = 1; row < height - 1; row += 1) {
    const sampledRow = row % 2 === 0 && row >= 2 && row < height - 2;
    for (let column = 1; column < width - 1; column += 1) {
      const index = row * width + column;
      const dx = (y[index + 1] ?? 0) - (y[index - 1] ?? 0);
      const dy = (y[index + width] ?? 0) - (y[index - width] ?? 0);
      if (sampledRow) acrossColumns[column * countV + (row - 2) / 2] = dx;
      if (column % 2 === 0 && column >= 2 && column < width - 2) acrossRows[row * countH + (column - 2) / 2] = dy;
      total += Math.abs(dx) + Math.abs(dy);
    }
  }
  const meanGradient = total / (width * height) + 1;
  const best = [0, 0, 0, 0];
  for (const horizontal of [true, false]) {
    const length = horizontal ? width : height;
    const across = horizontal ? height : width;
    const gradient = horizontal ? acrossRows : acrossColumns;
    // A sample's index is line · lineStride + position (its along: 2 + 2 · position).
    const lineStride = horizontal ? countH : countV;
    const alongs: number[] = [];
    for (let along = 2; along < length - 2; along += 2) alongs.push(along);
    const alongIndex = Int32Array.from(alongs, (_along, position) => position);
    const shifts = new Int32Array(alongs.length);
    const sampleIndex = new Int32Array(alongs.length);
    for (let degrees = -10; degrees <= 10; degrees += 1) {
      const slope = Math.tan((degrees * Math.PI) / 180);
      // Rounding commutes with adding the line's whole-pixel offset, so the shifts are the same for every line.
      alongs.forEach((along, position) => (shifts[position] = Math.round((along - length / 2) * slope)));
      // Each sample's index less the line's own offset; the shifts are monotonic in the position (one
      // slope), so the samples that stay inside the frame (1 ≤ line ≤ across − 2) are one run of positions.
      for (let position = 0; position < alongs.length; position += 1)
        sampleIndex[position] = (shifts[position] as number) * lineStride + (alongIndex[position] as number);
      for (const [side, from, to] of [
        [horizontal ? 0 : 2, 2, 0.3 * across],
        [horizontal ? 1 : 3, 0.7 * across, across - 3],
      ] as const) {
        for (let offset = Math.floor(from); offset < to; offset += 1) {
          const [first, end] = insideRun(shifts, 1 - offset, across - 2 - offset, slope >= 0);
          const base = offset * lineStride;
          let sum = 0;
          // The same samples added in the same order as one position after another with a bounds test.
          for (let position = first; position < end; position += 1)
            sum += gradient[base + (sampleIndex[position] as number)] as number;
          const samples = end - first;
          if (samples <= length / 4) continue;
          const strength = (Math.abs(sum) / samples / meanGradient) * (samples / (length / 2));
          if (strength > (best[side] ?? 0)) best[side] = strength;
        }
      }
    }
  }
  return best;
}

/** The histogram of the rounded luma levels (0–255), shared by the quantiles. */
function lumaHistogram(values: Float32Array): Uint32Array {
  const histogram = new Uint32Array(256);
  for (let index = 0; index < values.length; index += 1) {
    const level = Math.min(255, Math.max(0, Math.round(values[index] as number)));
    histogram[level] = (histogram[level] as number) + 1;
  }
  return histogram;
}

function quantile(histogram: Uint32Array, total: number, q: number): number {
  const target = q * total;
  let seen = 0;
  for (let level = 0; level < 256; level += 1) {
    seen += histogram[level] ?? 0;
    if (seen >= target) return level;
  }
  return 255;
}

/** The replay cues of one frame (8-bit RGB) around the face `box` (pixels of that frame). */
export function spoofFeatures(data: Uint8Array, width: number, height: number, box: FaceBox): SpoofFeatures {
  const { y, cb, cr } = planes(data, width, height);
  const x0 = Math.max(0, Math.floor(box.x));
  const y0 = Math.max(0, Math.floor(box.y));
  const x1 = Math.min(width, Math.ceil(box.x + box.width));
  const y1 = Math.min(height, Math.ceil(box.y + box.height));
  const y1px = boxMean(y, width, height, 1);
  const y4px = boxMean(y, width, height, 4);
  const cb1 = boxMean(cb, width, height, 1);
  const cr1 = boxMean(cr, width, height, 1);
  let fine = 0;
  let mid = 0;
  let chroma = 0;
  let chromaLevel = 0;
  let luma = 0;
  let count = 0;
  for (let row = y0; row < y1; row += 1) {
    for (let column = x0; column < x1; column += 1) {
      const index = row * width + column;
      fine += Math.abs((y[index] ?? 0) - (y1px[index] ?? 0));
      mid += Math.abs((y1px[index] ?? 0) - (y4px[index] ?? 0));
      chroma += Math.abs((cb[index] ?? 0) - (cb1[index] ?? 0)) + Math.abs((cr[index] ?? 0) - (cr1[index] ?? 0));
      chromaLevel += Math.hypot(cb[index] ?? 0, cr[index] ?? 0);
      luma += y[index] ?? 0;
      count += 1;
    }
  }
  if (count === 0)
    return { chromaDetail: 0, fineToMid: 0, blackLift: 0, saturation: 0, periodicPeak: 0, straightEdge: 0, outline: 0 };
  const histogram = lumaHistogram(y);
  const high = quantile(histogram, y.length, 0.99);
  const sides = sideEdges(y, width, height).sort((a, b) => b - a);
  return {
    chromaDetail: chroma / (fine + count),
    fineToMid: fine / (mid + count),
    blackLift: quantile(histogram, y.length, 0.01) / Math.max(1, high),
    saturation: chromaLevel / Math.max(1, luma),
    periodicPeak: periodicPeak(y, y4px, width, height, box),
    straightEdge: sides[0] ?? 0,
    outline: sides[2] ?? 0,
  };
}
