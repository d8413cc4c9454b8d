import { parentPort } from 'node:worker_threads';
import { assessQuality } from './quality-port';

// The helper thread of quality-thread.ts: each request answered under its id.
parentPort?.on('message', (request: { id: number; jpeg: Uint8Array; width: number; height: number }) => {
  // A Buffer arrives as a plain Uint8Array; the assessment tells encoded bytes from raw pixels by Buffer.
  const jpeg = Buffer.from(request.jpeg.buffer, request.jpeg.byteOffset, request.jpeg.byteLength);
  assessQuality({ jpeg, width: request.width, height: request.height }).then(
    (assessment) => parentPort?.postMessage({ id: request.id, assessment }),
    (error: unknown) =>
      parentPort?.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) }),
  );
});
