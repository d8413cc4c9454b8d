import { fftPlan, realRowTransform, columnsTransform, type FftPlan } from './fft';
import * as qualityCalibration from '../calibration/quality';
import type { PixelBox } from './pixels';
import { overwrittenFloat64, zeroedFloat64 } from './scratch';

const { abs, cos, hypot, log10, max, min, PI, round, sin } = Math;

/*
 * Periodic structure in the photo's frequency spectrum. A screen's pixel grid and a print's halftone are
 * periodic at 2-12 camera pixels: in the power spectrum they are isolated points, far above their
 * surroundings, whereas a card's own content (text, edges, a barcode's bars, guilloche curves) spreads
 * its power along lines and rings or sits at lower frequencies. The measure: the spectrum averaged over a
 * grid of up to four by four `TILE` px tiles of the document (Welch's method: periodic peaks add up,
 * content averages out), and for each local maximum in the band, how far it stands above the highest
 * point of a ring around it. The tile, the band, the ring and the comb test's figures are in
 * calibration/quality.ts.
 */
// The module's loops use these aliases: compiled to CommonJS, each use of an exported or imported
// constant is a property read, which the spectrum's inner loops paid for at every pixel.
const {
  SPECTRUM_TILE: TILE,
  SPECTRUM_BAND_LOW: BAND_LOW,
  SPECTRUM_BAND_HIGH: BAND_HIGH,
  PEAK_RING_RADIUS: RING_RADIUS,
  PEAK_RING_POINTS: RING_POINTS,
  COUNTED_PEAK_DECADES,
  COMB_SHARE,
  COMB_HARMONICS,
  MAX_TILES_ACROSS,
} = qualityCalibration;
const N = TILE;
export { TILE };
/** The power spectrum's row (one ky): kx 0…N/2, the other half being the conjugate's. */
const POWER_ROW = N / 2 + 1;
/**
 * JPEG's 8×8 blocks are periodic too, along the image's own axes: at low quality they put peaks on the
 * rows and columns at multiples of TILE/8 cycles. Those lines are left out of the peak search (a
 * screen's grid is seldom exactly aligned with them, and its harmonics fall elsewhere anyway).
 */
const JPEG_BLOCK_FREQUENCY = N / 8;

function onJpegGrid(frequency: number): boolean {
  const magnitude = abs(frequency);
  const harmonic = round(magnitude / JPEG_BLOCK_FREQUENCY);
  return harmonic >= 1 && abs(magnitude - harmonic * JPEG_BLOCK_FREQUENCY) <= 1;
}

const HANN = Float32Array.from({ length: N }, (_, index) => 0.5 - 0.5 * cos((2 * PI * index) / (N - 1)));

/*
 * The comb test (`isCombMember`). A text line is periodic too: an MRZ's runs of '<' and its fixed pitch
 * make a comb of harmonics of a low fundamental (about 6 cycles per tile for OCR-B at 2.54 mm), and the
 * upper harmonics fall in the band as point peaks. A screen's grid or a print's halftone has its
 * fundamental in the band and no sub-harmonics. So a peak at k that has a comparable peak at k·(n−1)/n
 * for some n (the previous harmonic of a comb whose n-th member it is) is a comb member and not evidence
 * of a recapture.
 * "Comparable": the previous harmonic reaches at least halfway up the peak from the ring around it
 * (`COMB_SHARE` of its prominence). Until 2026-11-27 it was "within one decade of the peak's power",
 * which any point of the background meets beside a peak less than a decade prominent: every weak peak
 * was taken for a comb member, and the halftone of most prints (0.3–0.9 decades) never counted
 * (docs/documents.md "Screen and print recapture").
 */

export interface SpectrumFeatures {
  /** Highest prominence of a point peak in the band, in decades of power above its ring. */
  peak_prominence: number;
  /** Number of point peaks at least `COUNTED_PEAK_DECADES` above their ring. */
  peak_count: number;
  /** The highest prominence among the peaks that are not members of a harmonic comb (0 when none). */
  periodic_prominence: number;
  /** Mean log-power at high frequencies (64-120 cycles) minus at mid frequencies (16-48): the spectrum's tilt. */
  high_mid_ratio: number;
  /** Summed power in the bands [4, 16), [16, 64) and [64, 128) cycles per tile, per tile. */
  band_power: [number, number, number];
  /** Number of tiles the spectrum was averaged over. */
  tiles: number;
}

/** How many tiles go along a side of `extent` px: one per 1.5 tiles of length, at least one that fits. */
function tilesAcross(extent: number): number {
  if (extent < N) return 0;
  return min(MAX_TILES_ACROSS, max(1, round(extent / (1.5 * N))));
}

/**
 * Top-left corners of a grid of tiles spread over the box from edge to edge (twelve on a 1600×1200
 * photo, two on a 480×640 video frame, none when the box is smaller than a tile). Four tiles in the
 * box's middle saw 14% of a photo; a print's halftone or a screen's grid covers the whole document,
 * and averaging three times the tiles lowers the spectrum's own scatter, so a weaker peak stands out
 * (2026-11-27: recaptures detected at the false-alarm limit out of fold 121 → 131 of 135,
 * docs/documents.md "Screen and print recapture").
 */
export function tileOrigins(box: PixelBox): [number, number][] {
  const columns = tilesAcross(box.x1 - box.x0);
  const rows = tilesAcross(box.y1 - box.y0);
  const spread = (start: number, extent: number, count: number, index: number): number =>
    round(start + (count === 1 ? (extent - N) / 2 : ((extent - N) * index) / (count - 1)));
  const origins: [number, number][] = [];
  for (let row = 0; row < rows; row += 1) {
    for (let column = 0; column < columns; column += 1) {
      origins.push([spread(box.x0, box.x1 - box.x0, columns, column), spread(box.y0, box.y1 - box.y0, rows, row)]);
    }
  }
  return origins;
}

/** A tile's pixels, row-major, `TILE`×`TILE`. */
export type Tile = Float32Array;

/**
 * The tiles at `origins` of one of the photo's planes (`pixels.luma`, or `pixels.chroma` along an axis):
 * row-major `TILE`×`TILE` copies.
 */
export function planeTiles(plane: Float32Array, width: number, origins: readonly [number, number][]): Tile[] {
  return origins.map(([originX, originY]) => {
    const tile = new Float32Array(N * N);
    for (let y = 0; y < N; y += 1) {
      const start = (originY + y) * width + originX;
      tile.set(plane.subarray(start, start + N), y * N);
    }
    return tile;
  });
}

/**
 * Buffers reused from tile to tile, made once per thread: a tile's 2-D transform allocates nothing.
 */
interface Workspace {
  plan: FftPlan;
  /** One windowed row of the tile. */
  input: Float64Array;
  /**
   * The rows' real transforms, row after row, each `2·TILE` numbers (re, im: fft.js's layout, of which kx
   * 0…TILE/2 are meaningful and read).
   */
  rows: Float64Array;
  /** Their transforms along y, in the same layout (ky by kx). */
  columns: Float64Array;
}

let workspace: Workspace | null = null;

/** Drops this thread's FFT plan and work buffers (engines.ts); the next spectrum makes them again. */
export function releaseSpectrumPlans(): void {
  workspace = null;
}

function buffers(): Workspace {
  workspace ??= {
    plan: fftPlan(N),
    input: new Float64Array(N),
    rows: new Float64Array(2 * N * N),
    columns: new Float64Array(2 * POWER_ROW * N),
  };
  return workspace;
}

/**
 * Power spectrum (|F|², ky 0…N−1 by kx 0…N/2, row-major, `POWER_ROW` numbers a row) of the windowed,
 * mean-removed `TILE`×`TILE` square of `plane` (row-major, `stride` wide) whose top-left pixel is at
 * `start`, added into `power`. The same arithmetic, in the same order, as fft.js's `realTransform` of each
 * row and `transform` of each column until 2026-11-30 (fft.ts), so the spectrum is the same to the last
 * bit; the columns are transformed side by side, a row of the matrix at a time, instead of gathered one by
 * one, and the power is laid out as the column pass leaves it, so that adding it up reads memory in order.
 */
function addTileSpectrum(plane: Float32Array, stride: number, start: number, power: Float64Array): void {
  const { plan, input, rows, columns } = buffers();
  let mean = 0;
  for (let y = 0; y < N; y += 1) {
    for (let x = 0, at = start + y * stride; x < N; x += 1, at += 1) mean += plane[at] ?? 0;
  }
  mean /= N * N;
  for (let y = 0; y < N; y += 1) {
    const wy = HANN[y] ?? 0;
    for (let x = 0, at = start + y * stride; x < N; x += 1, at += 1) input[x] = ((plane[at] ?? 0) - mean) * wy * (HANN[x] ?? 0);
    realRowTransform(plan, rows, input, y * 2 * N);
  }
  columnsTransform(plan, columns, rows, POWER_ROW, 2 * N);
  for (let offset = 0, at = 0; offset < power.length; offset += 1, at += 2) {
    const re = columns[at] ?? 0;
    const im = columns[at + 1] ?? 0;
    power[offset] = (power[offset] ?? 0) + re * re + im * im;
  }
}

/** log10 power at signed frequency (fx, fy), using the symmetry of a real signal's spectrum. */
function logPowerAt(logPower: Float64Array, fx: number, fy: number): number {
  let x = fx;
  let y = fy;
  if (x < 0) {
    x = -x;
    y = -y;
  }
  // y modulo N, for negative y too (N is a power of two).
  return logPower[(y & (N - 1)) * POWER_ROW + x] ?? 0;
}

const RING = Array.from({ length: RING_POINTS }, (_, index): [number, number] => {
  const angle = (2 * PI * index) / RING_POINTS;
  return [round(RING_RADIUS * cos(angle)), round(RING_RADIUS * sin(angle))];
});

function isCombMember(logPower: Float64Array, kx: number, ky: number, value: number, prominence: number): boolean {
  for (let n = 2; n <= COMB_HARMONICS; n += 1) {
    const qx = round((kx * (n - 1)) / n);
    const qy = round((ky * (n - 1)) / n);
    // Past this, the previous harmonic would merge with the peak itself.
    if (hypot(kx - qx, ky - qy) < 3) return false;
    for (let dx = -1; dx <= 1; dx += 1) {
      for (let dy = -1; dy <= 1; dy += 1) {
        if (logPowerAt(logPower, qx + dx, qy + dy) >= value - COMB_SHARE * prominence) return true;
      }
    }
  }
  return false;
}

/** Peak features of the spectrum averaged over `tiles` (Welch), see the module's comment. */
export function spectrumFeatures(tiles: readonly Tile[]): SpectrumFeatures {
  const power = new Float64Array(POWER_ROW * N);
  for (const tile of tiles) addTileSpectrum(tile, N, 0, power);
  return featuresOfPower(power, tiles.length);
}

/**
 * `spectrumFeatures(planeTiles(plane, width, origins))`, the same to the last bit, read from the plane
 * in place instead of from copies of its tiles.
 */
export function planeSpectrumFeatures(
  plane: Float32Array,
  width: number,
  origins: readonly [number, number][],
): SpectrumFeatures {
  // Summed into: starts at zero, kept or not.
  const power = zeroedFloat64('spectrum_power', POWER_ROW * N);
  for (const [originX, originY] of origins) addTileSpectrum(plane, width, originY * width + originX, power);
  return featuresOfPower(power, origins.length);
}

function featuresOfPower(power: Float64Array, tileCount: number): SpectrumFeatures {
  if (tileCount === 0)
    return { peak_prominence: 0, peak_count: 0, periodic_prominence: 0, high_mid_ratio: 0, band_power: [0, 0, 0], tiles: 0 };
  const half = N / 2;
  // Every element written before the peak search reads any.
  const logPower = overwrittenFloat64('spectrum_log_power', power.length);
  for (let index = 0; index < power.length; index += 1) logPower[index] = log10((power[index] ?? 0) / tileCount + 1e-9);

  let best = 0;
  let counted = 0;
  let periodic = 0;
  let highSum = 0;
  let highCount = 0;
  let midSum = 0;
  let midCount = 0;
  const bands: [number, number, number] = [0, 0, 0];
  for (let kx = 0; kx <= half; kx += 1) {
    for (let signedY = -half + 1; signedY < half; signedY += 1) {
      // Each frequency once: the kx = 0 column is symmetric in ky.
      if (kx === 0 && signedY < 0) continue;
      // The radius compared by its exact integer square: the comparisons hypot gave (quality-spectrum.unit.test.ts).
      const squared = kx * kx + signedY * signedY;
      const linear = (power[((signedY + N) % N) * POWER_ROW + kx] ?? 0) / tileCount;
      if (squared >= 4 * 4 && squared < 16 * 16) bands[0] += linear;
      else if (squared >= 16 * 16 && squared < 64 * 64) bands[1] += linear;
      else if (squared >= 64 * 64 && squared < 128 * 128) bands[2] += linear;
      if (squared < BAND_LOW * BAND_LOW || squared > BAND_HIGH * BAND_HIGH) continue;
      const value = logPowerAt(logPower, kx, signedY);
      if (squared >= 64 * 64) {
        highSum += value;
        highCount += 1;
      } else if (squared <= 48 * 48) {
        midSum += value;
        midCount += 1;
      }
      if (onJpegGrid(kx) || onJpegGrid(signedY)) continue;
      let isMaximum = true;
      for (let dx = -1; dx <= 1 && isMaximum; dx += 1) {
        for (let dy = -1; dy <= 1; dy += 1) {
          if ((dx !== 0 || dy !== 0) && logPowerAt(logPower, kx + dx, signedY + dy) > value) {
            isMaximum = false;
            break;
          }
        }
      }
      if (!isMaximum) continue;
      let ring = -Infinity;
      for (const [dx, dy] of RING) ring = max(ring, logPowerAt(logPower, kx + dx, signedY + dy));
      const prominence = value - ring;
      if (prominence > best) best = prominence;
      if (prominence >= COUNTED_PEAK_DECADES) counted += 1;
      if (prominence > periodic && !isCombMember(logPower, kx, signedY, value, prominence)) periodic = prominence;
    }
  }
  return {
    peak_prominence: best,
    peak_count: counted,
    periodic_prominence: periodic,
    high_mid_ratio: highCount === 0 || midCount === 0 ? 0 : highSum / highCount - midSum / midCount,
    band_power: bands,
    tiles: tileCount,
  };
}
