/*
 * The recapture spectrum's FFTs (spectrum.ts): fft.js's radix-4 algorithm (fft.js 4.0.4, `_realTransform4`
 * and `_transform4`, forward only), its arithmetic kept operation for operation so that every spectrum is the
 * same to the last bit as before; the calibrated model (calibration/thresholds.ts) was fitted on those
 * figures. What changes is what the calls cost around the arithmetic:
 * - the tables (twiddles, bit reversal) are typed arrays made once per size, and no call allocates;
 * - the 2-D transform's second pass transforms all of its columns side by side (`columnsTransform`): each
 *   butterfly's twiddles are read once for the whole row of columns and the inner loop runs along
 *   contiguous memory, where fft.js was called once per column on a gathered copy.
 * fft.js multiplied by `inv` (1 forward) at several places: a product by 1 is exact, so leaving it out
 * changes no bit. Checked against fft.js itself on random input in fft.unit.test.ts.
 */
export interface FftPlan {
  /** The transform's length (a power of two, at least 4). */
  size: number;
  /** fft.js's `table`: cos and −sin of πi/size for each even i below 2·size. */
  table: Float64Array;
  /** fft.js's `_bitrev`: the initial step's input offsets (in numbers, twice the complex index). */
  bitrev: Int32Array;
  /** fft.js's `_width`: log2 of the initial step's stride, in numbers. */
  width: number;
}

const plans = new Map<number, FftPlan>();

/** The plan for transforms of `size` points, made once per thread. */
export function fftPlan(size: number): FftPlan {
  const cached = plans.get(size);
  if (cached !== undefined) return cached;
  if (size < 4 || (size & (size - 1)) !== 0) throw new Error(`FFT size must be a power of two, at least 4: ${size}`);
  const table = new Float64Array(size * 2);
  for (let i = 0; i < table.length; i += 2) {
    // fft.js's expression, evaluated in the same order: the same doubles.
    const angle = (Math.PI * i) / size;
    table[i] = Math.cos(angle);
    table[i + 1] = -Math.sin(angle);
  }
  let power = 0;
  for (let t = 1; size > t; t <<= 1) power += 1;
  const width = power % 2 === 0 ? power - 1 : power;
  const bitrev = new Int32Array(1 << width);
  for (let j = 0; j < bitrev.length; j += 1) {
    let reversed = 0;
    for (let shift = 0; shift < width; shift += 2) reversed |= ((j >>> shift) & 3) << (width - shift - 2);
    bitrev[j] = reversed;
  }
  const plan = { size, table, bitrev, width };
  plans.set(size, plan);
  return plan;
}

/**
 * fft.js's `realTransform(out, data)`: the spectrum of the `size` real numbers of `data` into `out`
 * (2·size numbers from `outStart`, re and im interleaved), of which bins 0…size/2 are meaningful (the
 * rest is the conjugate half, left as fft.js leaves it: not completed).
 */
export function realRowTransform(plan: FftPlan, out: Float64Array, data: Float64Array, outStart = 0): void {
  const { table, bitrev, width } = plan;
  const size = plan.size * 2;
  const o = outStart;
  let step = 1 << width;
  let len = (size / step) << 1;
  const half = step >>> 1;
  if (len === 4) {
    for (let outOff = 0, t = 0; outOff < size; outOff += len, t += 1) {
      const off = (bitrev[t] ?? 0) >>> 1;
      const evenR = data[off] ?? 0;
      const oddR = data[off + half] ?? 0;
      out[o + outOff] = evenR + oddR;
      out[o + outOff + 1] = 0;
      out[o + outOff + 2] = evenR - oddR;
      out[o + outOff + 3] = 0;
    }
  } else {
    for (let outOff = 0, t = 0; outOff < size; outOff += len, t += 1) {
      const off = (bitrev[t] ?? 0) >>> 1;
      const Ar = data[off] ?? 0;
      const Br = data[off + half] ?? 0;
      const Cr = data[off + 2 * half] ?? 0;
      const Dr = data[off + 3 * half] ?? 0;
      const T0r = Ar + Cr;
      const T1r = Ar - Cr;
      const T2r = Br + Dr;
      const T3r = Br - Dr;
      out[o + outOff] = T0r + T2r;
      out[o + outOff + 1] = 0;
      out[o + outOff + 2] = T1r;
      out[o + outOff + 3] = -T3r;
      out[o + outOff + 4] = T0r - T2r;
      out[o + outOff + 5] = 0;
      out[o + outOff + 6] = T1r;
      out[o + outOff + 7] = T3r;
    }
  }
  for (step >>= 2; step >= 2; step >>= 2) {
    len = (size / step) << 1;
    const halfLen = len >>> 1;
    const quarterLen = halfLen >>> 1;
    const hquarterLen = quarterLen >>> 1;
    for (let outOff = 0; outOff < size; outOff += len) {
      for (let i = 0, k = 0; i <= hquarterLen; i += 2, k += step) {
        const A = outOff + i;
        const B = A + quarterLen;
        const C = B + quarterLen;
        const D = C + quarterLen;
        const Ar = out[o + A] ?? 0;
        const Ai = out[o + A + 1] ?? 0;
        const Br = out[o + B] ?? 0;
        const Bi = out[o + B + 1] ?? 0;
        const Cr = out[o + C] ?? 0;
        const Ci = out[o + C + 1] ?? 0;
        const Dr = out[o + D] ?? 0;
        const Di = out[o + D + 1] ?? 0;
        const tableBr = table[k] ?? 0;
        const tableBi = table[k + 1] ?? 0;
        const MBr = Br * tableBr - Bi * tableBi;
        const MBi = Br * tableBi + Bi * tableBr;
        const tableCr = table[2 * k] ?? 0;
        const tableCi = table[2 * k + 1] ?? 0;
        const MCr = Cr * tableCr - Ci * tableCi;
        const MCi = Cr * tableCi + Ci * tableCr;
        const tableDr = table[3 * k] ?? 0;
        const tableDi = table[3 * k + 1] ?? 0;
        const MDr = Dr * tableDr - Di * tableDi;
        const MDi = Dr * tableDi + Di * tableDr;
        const T0r = Ar + MCr;
        const T0i = Ai + MCi;
        const T1r = Ar - MCr;
        const T1i = Ai - MCi;
        const T2r = MBr + MDr;
        const T2i = MBi + MDi;
        const T3r = MBr - MDr;
        const T3i = MBi - MDi;
        out[o + A] = T0r + T2r;
        out[o + A + 1] = T0i + T2i;
        out[o + B] = T1r + T3i;
        out[o + B + 1] = T1i - T3r;
        if (i === 0) {
          out[o + C] = T0r - T2r;
          out[o + C + 1] = T0i - T2i;
          continue;
        }
        if (i === hquarterLen) continue;
        // The mirrored outputs, as fft.js forms them (its ST… values with inv = 1).
        const ST0r = T1r;
        const ST0i = -T1i;
        const ST1r = T0r;
        const ST1i = -T0i;
        const ST2r = -T3i;
        const ST2i = -T3r;
        const ST3r = -T2i;
        const ST3i = -T2r;
        const SA = outOff + quarterLen - i;
        const SB = outOff + halfLen - i;
        out[o + SA] = ST0r + ST2r;
        out[o + SA + 1] = ST0i + ST2i;
        out[o + SB] = ST1r + ST3i;
        out[o + SB + 1] = ST1i - ST3r;
      }
    }
  }
}

/**
 * fft.js's `transform(out, data)` applied to each of `count` columns at once: `data` and `out` are
 * `size` rows of `count` complex numbers (re, im; `data`'s rows `dataRowLength` numbers apart, the
 * first 2·count of each read), and column c of `out` is the transform of column c of `data`, with
 * fft.js's arithmetic in fft.js's order for each column.
 */
export function columnsTransform(
  plan: FftPlan,
  out: Float64Array,
  data: Float64Array,
  count: number,
  dataRowLength = 2 * count,
): void {
  const { table, bitrev, width } = plan;
  const size = plan.size * 2;
  // Numbers per row of `out` (one complex element of each column's sequence); `data`'s rows may be longer.
  const rowLength = 2 * count;
  let step = 1 << width;
  let len = (size / step) << 1;
  // fft.js's offsets count numbers, two per complex element: element e starts at row e, e·rowLength.
  const strideRows = step >>> 1;
  if (len === 4) {
    for (let outOff = 0, t = 0; outOff < size; outOff += len, t += 1) {
      const even = ((bitrev[t] ?? 0) >>> 1) * dataRowLength;
      const odd = even + strideRows * dataRowLength;
      const left = (outOff >>> 1) * rowLength;
      const right = left + rowLength;
      for (let c = 0; c < rowLength; c += 2) {
        const evenR = data[even + c] ?? 0;
        const evenI = data[even + c + 1] ?? 0;
        const oddR = data[odd + c] ?? 0;
        const oddI = data[odd + c + 1] ?? 0;
        out[left + c] = evenR + oddR;
        out[left + c + 1] = evenI + oddI;
        out[right + c] = evenR - oddR;
        out[right + c + 1] = evenI - oddI;
      }
    }
  } else {
    for (let outOff = 0, t = 0; outOff < size; outOff += len, t += 1) {
      const a = ((bitrev[t] ?? 0) >>> 1) * dataRowLength;
      const b = a + strideRows * dataRowLength;
      const cc = b + strideRows * dataRowLength;
      const d = cc + strideRows * dataRowLength;
      const fa = (outOff >>> 1) * rowLength;
      const fb = fa + rowLength;
      const fc = fb + rowLength;
      const fd = fc + rowLength;
      for (let c = 0; c < rowLength; c += 2) {
        const Ar = data[a + c] ?? 0;
        const Ai = data[a + c + 1] ?? 0;
        const Br = data[b + c] ?? 0;
        const Bi = data[b + c + 1] ?? 0;
        const Cr = data[cc + c] ?? 0;
        const Ci = data[cc + c + 1] ?? 0;
        const Dr = data[d + c] ?? 0;
        const Di = data[d + c + 1] ?? 0;
        const T0r = Ar + Cr;
        const T0i = Ai + Ci;
        const T1r = Ar - Cr;
        const T1i = Ai - Ci;
        const T2r = Br + Dr;
        const T2i = Bi + Di;
        const T3r = Br - Dr;
        const T3i = Bi - Di;
        out[fa + c] = T0r + T2r;
        out[fa + c + 1] = T0i + T2i;
        out[fb + c] = T1r + T3i;
        out[fb + c + 1] = T1i - T3r;
        out[fc + c] = T0r - T2r;
        out[fc + c + 1] = T0i - T2i;
        out[fd + c] = T1r - T3i;
        out[fd + c + 1] = T1i + T3r;
      }
    }
  }
  for (step >>= 2; step >= 2; step >>= 2) {
    len = (size / step) << 1;
    const quarterLen = len >>> 2;
    // In rows: a block of len/2 elements, its quarters len/8 elements apart.
    const quarterRows = (quarterLen >>> 1) * rowLength;
    for (let outOff = 0; outOff < size; outOff += len) {
      const limit = outOff + quarterLen;
      for (let i = outOff, k = 0; i < limit; i += 2, k += step) {
        const tableBr = table[k] ?? 0;
        const tableBi = table[k + 1] ?? 0;
        const tableCr = table[2 * k] ?? 0;
        const tableCi = table[2 * k + 1] ?? 0;
        const tableDr = table[3 * k] ?? 0;
        const tableDi = table[3 * k + 1] ?? 0;
        const A = (i >>> 1) * rowLength;
        const B = A + quarterRows;
        const C = B + quarterRows;
        const D = C + quarterRows;
        for (let c = 0; c < rowLength; c += 2) {
          const Ar = out[A + c] ?? 0;
          const Ai = out[A + c + 1] ?? 0;
          const Br = out[B + c] ?? 0;
          const Bi = out[B + c + 1] ?? 0;
          const Cr = out[C + c] ?? 0;
          const Ci = out[C + c + 1] ?? 0;
          const Dr = out[D + c] ?? 0;
          const Di = out[D + c + 1] ?? 0;
          const MBr = Br * tableBr - Bi * tableBi;
          const MBi = Br * tableBi + Bi * tableBr;
          const MCr = Cr * tableCr - Ci * tableCi;
          const MCi = Cr * tableCi + Ci * tableCr;
          const MDr = Dr * tableDr - Di * tableDi;
          const MDi = Dr * tableDi + Di * tableDr;
          const T0r = Ar + MCr;
          const T0i = Ai + MCi;
          const T1r = Ar - MCr;
          const T1i = Ai - MCi;
          const T2r = MBr + MDr;
          const T2i = MBi + MDi;
          const T3r = MBr - MDr;
          const T3i = MBi - MDi;
          out[A + c] = T0r + T2r;
          out[A + c + 1] = T0i + T2i;
          out[B + c] = T1r + T3i;
          out[B + c + 1] = T1i - T3r;
          out[C + c] = T0r - T2r;
          out[C + c + 1] = T0i - T2i;
          out[D + c] = T1r - T3i;
          out[D + c + 1] = T1i + T3r;
        }
      }
    }
  }
}
