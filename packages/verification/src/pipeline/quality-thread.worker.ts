import { parentPort } from 'node:worker_threads';
import { assessQuality } from './quality-port';
import { freeNow, reuseQualityBuffers } from '../quality/scratch';

// This thread does nothing but assess photos, one after another: its work buffers are kept from photo to
// photo instead of left to the garbage collector (quality/scratch.ts).
reuseQualityBuffers();

// The helper thread of quality-thread.ts: each request answered under its id.
parentPort?.on('message', (request: { id: number; jpeg: Uint8Array; width: number; height: number }) => {
  // A Buffer arrives as a plain Uint8Array; the assessment tells encoded bytes from raw pixels by Buffer.
  const jpeg = Buffer.from(request.jpeg.buffer, request.jpeg.byteOffset, request.jpeg.byteLength);
  assessQuality({ jpeg, width: request.width, height: request.height })
    .then(
      (assessment) => parentPort?.postMessage({ id: request.id, assessment }),
      (error: unknown) =>
        parentPort?.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) }),
    )
    // The message's copy of the photo is this handler's alone, and libvips is done with it.
    .finally(() => freeNow(request.jpeg.buffer));
});
