import FFT from 'fft.js';
import * as imageCalibration from '../calibration/image';
import type { GreyRaster } from './raster';

const { cos, hypot, log10, max, min, PI, pow, round, sqrt } = Math;

/**
 * A screen's pixel grid (or a print's halftone) taken out of a crop by notch filtering. What the camera
 * sees of a screen is the text crossed by the grid's dark lines, aliased by the sensor into moiré; the
 * grid is periodic, so in the spectrum of a small tile it is a few point peaks standing far above the
 * spectrum around them, where text is broadband. Each tile (`TILE` px, half overlapping) is transformed,
 * every frequency whose magnitude stands more than `PEAK_DECADES` above the mean of the ring around it is
 * brought down to that ring, and the tiles are put back together under a Hann window. The lowest
 * frequencies (periods of `PROTECTED_PERIOD_PX` and more: a character's own shape and its pitch in the
 * line) are never touched.
 */
// The filter's figures are in calibration/image.ts. Copied into module constants: compiled to CommonJS,
// each use of an imported constant is a property read, and the loops below run per pixel.
const {
  DESCREEN_TILE: TILE,
  DESCREEN_PEAK_DECADES: PEAK_DECADES,
  DESCREEN_PROTECTED_PERIOD_PX: PROTECTED_PERIOD_PX,
  DESCREEN_RING_OUTER: RING_OUTER,
  DESCREEN_RING_INNER: RING_INNER,
} = imageCalibration;
const STRIDE = TILE / 2;

interface ComplexFft {
  createComplexArray(): number[];
  transform(output: number[], input: ArrayLike<number>): void;
  inverseTransform(output: number[], input: ArrayLike<number>): void;
}

let engine: ComplexFft | null = null;
function fft(): ComplexFft {
  engine ??= new FFT(TILE) as unknown as ComplexFft;
  return engine;
}

const SYNTHESIS_WINDOW = Float64Array.from({ length: TILE }, (_, index) => 0.5 - 0.5 * cos((2 * PI * (index + 0.5)) / TILE));

let lineInput: number[] | null = null;
let lineOutput: number[] | null = null;

/** Drops this thread's FFT plan and line buffers (engines.ts); the next descreen makes them again. */
export function releaseDescreenPlans(): void {
  engine = null;
  lineInput = null;
  lineOutput = null;
}

/**
 * Transforms each of the tile's lines in place: a line's elements lie `positionStride` apart, and lines
 * `lineStride` apart (rows: 1 and TILE; columns: TILE and 1).
 */
function transformLines(
  real: Float64Array,
  imaginary: Float64Array,
  inverse: boolean,
  lineStride: number,
  positionStride: number,
): void {
  const engine = fft();
  const input = (lineInput ??= engine.createComplexArray());
  const output = (lineOutput ??= engine.createComplexArray());
  for (let line = 0; line < TILE; line += 1) {
    const first = line * lineStride;
    for (let position = 0; position < TILE; position += 1) {
      const at = first + position * positionStride;
      input[2 * position] = real[at] ?? 0;
      input[2 * position + 1] = imaginary[at] ?? 0;
    }
    if (inverse) engine.inverseTransform(output, input);
    else engine.transform(output, input);
    for (let position = 0; position < TILE; position += 1) {
      const at = first + position * positionStride;
      real[at] = output[2 * position] ?? 0;
      imaginary[at] = output[2 * position + 1] ?? 0;
    }
  }
}

/** In-place 2-D transform of a TILE×TILE complex tile held as separate real and imaginary planes. */
function transform2d(real: Float64Array, imaginary: Float64Array, inverse: boolean): void {
  transformLines(real, imaginary, inverse, TILE, 1);
  transformLines(real, imaginary, inverse, 1, TILE);
}

/** Sums over the (2r+1)×(2r+1) box around every bin, the spectrum wrapping around at its edges. */
function boxSums(values: Float64Array, radius: number): Float64Array {
  const rows = new Float64Array(TILE * TILE);
  for (let y = 0; y < TILE; y += 1) {
    for (let x = 0; x < TILE; x += 1) {
      let sum = 0;
      for (let dx = -radius; dx <= radius; dx += 1) sum += values[y * TILE + ((x + dx + TILE) % TILE)] ?? 0;
      rows[y * TILE + x] = sum;
    }
  }
  const boxes = new Float64Array(TILE * TILE);
  for (let y = 0; y < TILE; y += 1) {
    for (let x = 0; x < TILE; x += 1) {
      let sum = 0;
      for (let dy = -radius; dy <= radius; dy += 1) sum += rows[((y + dy + TILE) % TILE) * TILE + x] ?? 0;
      boxes[y * TILE + x] = sum;
    }
  }
  return boxes;
}

const PROTECTED_RADIUS = TILE / PROTECTED_PERIOD_PX;
const FREE = Uint8Array.from({ length: TILE * TILE }, (_, index) => {
  const fy = Math.floor(index / TILE);
  const fx = index % TILE;
  return hypot(fx < TILE / 2 ? fx : fx - TILE, fy < TILE / 2 ? fy : fy - TILE) >= PROTECTED_RADIUS ? 1 : 0;
});
const RING_BINS = (2 * RING_OUTER + 1) ** 2 - (2 * RING_INNER + 1) ** 2;

export function descreen(source: GreyRaster): GreyRaster {
  const { data, width, height } = source;
  const sum = new Float64Array(width * height);
  const weight = new Float64Array(width * height);
  const real = new Float64Array(TILE * TILE);
  const imaginary = new Float64Array(TILE * TILE);
  const logMagnitude = new Float64Array(TILE * TILE);
  const pixels = new Float64Array(TILE * TILE);
  for (let top = -STRIDE; top < height; top += STRIDE) {
    for (let left = -STRIDE; left < width; left += STRIDE) {
      // Pixels beyond the crop repeat its edge.
      for (let y = 0; y < TILE; y += 1) {
        const row = min(height - 1, max(0, top + y)) * width;
        for (let x = 0; x < TILE; x += 1) {
          pixels[y * TILE + x] = data[row + min(width - 1, max(0, left + x))] ?? 0;
        }
      }
      real.set(pixels);
      imaginary.fill(0);
      transform2d(real, imaginary, false);
      for (let index = 0; index < TILE * TILE; index += 1) {
        const re = real[index] ?? 0;
        const im = imaginary[index] ?? 0;
        logMagnitude[index] = log10(sqrt(re * re + im * im) + 1e-3);
      }
      const outer = boxSums(logMagnitude, RING_OUTER);
      const inner = boxSums(logMagnitude, RING_INNER);
      let notched = 0;
      for (let index = 0; index < TILE * TILE; index += 1) {
        if (FREE[index] === 0) continue;
        const ring = ((outer[index] ?? 0) - (inner[index] ?? 0)) / RING_BINS;
        const excess = (logMagnitude[index] ?? 0) - ring;
        if (excess <= PEAK_DECADES) continue;
        // Down to the ring's level: the text's own share of that frequency stays.
        const gain = pow(10, -excess);
        real[index] = (real[index] ?? 0) * gain;
        imaginary[index] = (imaginary[index] ?? 0) * gain;
        notched += 1;
      }
      // A tile with nothing to take out is put back as it was.
      if (notched > 0) transform2d(real, imaginary, true);
      else real.set(pixels);
      for (let y = 0; y < TILE; y += 1) {
        const outY = top + y;
        if (outY < 0 || outY >= height) continue;
        for (let x = 0; x < TILE; x += 1) {
          const outX = left + x;
          if (outX < 0 || outX >= width) continue;
          const w = (SYNTHESIS_WINDOW[x] ?? 0) * (SYNTHESIS_WINDOW[y] ?? 0);
          sum[outY * width + outX] = (sum[outY * width + outX] ?? 0) + (real[y * TILE + x] ?? 0) * w;
          weight[outY * width + outX] = (weight[outY * width + outX] ?? 0) + w;
        }
      }
    }
  }
  const out = Buffer.alloc(width * height);
  for (let index = 0; index < width * height; index += 1) {
    out[index] = min(255, max(0, round((sum[index] ?? 0) / max(1e-9, weight[index] ?? 0))));
  }
  return { data: out, width, height };
}
