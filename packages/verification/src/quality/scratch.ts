/**
 * Work buffers of `assessQuality` kept from photo to photo, for the quality helper thread
 * (pipeline/quality-thread.worker.ts) only. Made afresh per photo, a 1600×1200 photo's planes, Laplacian
 * image and spectra were ≈ 25 MB of ArrayBuffers left to the garbage collector, which in the helper's small
 * heap collected them only every second or third photo: 30–77 MiB of the reading thread's process held at
 * a time (docs/performance.md, "Document reading: where a reading thread's memory goes"). Kept, they cost
 * the largest photo's size once.
 *
 * Off unless a thread turns it on: a caller that keeps `RgbPixels` (the calibration, tests, tooling) or a
 * reading thread that assesses a photo only when its helper cannot (which would then keep the buffers for
 * good) gets fresh arrays as before. A buffer handed out here is valid until the next request of the same
 * name: its users take it, fill it and read it within one synchronous run (never across an `await`, where
 * another photo's assessment could take it), and no result keeps a reference to it.
 */
let reusing = false;
const floats32 = new Map<string, Float32Array>();
const floats64 = new Map<string, Float64Array>();

/** Turns the reuse on for this thread (the quality helper, at its start). */
export function reuseQualityBuffers(): void {
  reusing = true;
}

/** Turns it off and drops the kept buffers (tests; a thread that no longer assesses photos). */
export function releaseQualityBuffers(): void {
  reusing = false;
  floats32.clear();
  floats64.clear();
}

/**
 * A view of exactly `length` numbers: out-of-range reads (`?? 0` at the planes' edges) and `.length`
 * behave as they did on a fresh array of that size. Grown to the largest length asked for, never shrunk.
 */
function kept<T extends Float32Array | Float64Array>(
  store: Map<string, T>,
  name: string,
  length: number,
  make: (length: number) => T,
): T {
  let buffer = store.get(name);
  if (buffer === undefined || buffer.length < length) {
    buffer = make(length);
    store.set(name, buffer);
  }
  return buffer.subarray(0, length) as T;
}

/** A Float32Array of `length` whose contents are stale when reused: the caller writes every element before reading. */
export function overwrittenFloat32(name: string, length: number): Float32Array {
  return reusing ? kept(floats32, name, length, (size) => new Float32Array(size)) : new Float32Array(length);
}

/** A Float64Array of `length` whose contents are stale when reused: the caller writes every element before reading. */
export function overwrittenFloat64(name: string, length: number): Float64Array {
  return reusing ? kept(floats64, name, length, (size) => new Float64Array(size)) : new Float64Array(length);
}

/** A Float64Array of `length` zeros, as `new Float64Array(length)` gives. */
export function zeroedFloat64(name: string, length: number): Float64Array {
  return reusing ? kept(floats64, name, length, (size) => new Float64Array(size)).fill(0) : new Float64Array(length);
}

/**
 * Frees `buffer`'s memory now rather than at the garbage collection that would find it, where this thread
 * reuses its buffers: about 6 MB a photo of decoded RGB and the request's copy of the JPEG, which alone
 * still added up to 60–90 MiB of garbage between the helper's collections (the collector runs on external
 * memory only past a margin of tens of MiB). Only for a buffer the caller alone holds and has used up:
 * detaching empties every view of it. A buffer that cannot be detached is left to the collector.
 * The first detach costs the thread's typed-array loops a check at every access from then on (V8's
 * detaching protector): ≈ 18 % of the helper's CPU per photo, kept for the 32 MiB it saves (docs/performance.md,
 * "Tried and not kept: the ink masks' tables…"). Never call it from the reading thread.
 */
export function freeNow(buffer: ArrayBufferLike): void {
  if (!reusing) return;
  // ES2024's ArrayBuffer.prototype.transfer (Node 21+): transfer(0) detaches the buffer and releases its memory.
  const transfer = (buffer as { transfer?: (length: number) => ArrayBuffer }).transfer;
  if (typeof transfer !== 'function') return;
  try {
    transfer.call(buffer, 0);
  } catch {
    // Not detachable (a WebAssembly memory, an external buffer marked so): the collector frees it.
  }
}
