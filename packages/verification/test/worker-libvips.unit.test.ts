import { Worker } from 'node:worker_threads';
import sharp from 'sharp';
import { stopEngines } from '../src';
import runVerificationTask from '../src/worker';

afterAll(() => stopEngines());

/** Loads sharp in another thread of this process, as the quality helper or a face thread does when it starts. */
function loadSharpInAnotherThread(): Promise<void> {
  return new Promise((resolve, reject) => {
    const other = new Worker(
      "require(require('node:worker_threads').workerData); require('node:worker_threads').parentPort.postMessage('loaded');",
      { eval: true, workerData: require.resolve('sharp') },
    );
    other.once('message', () => void other.terminate().then(() => resolve()));
    other.once('error', reject);
  });
}

it("settles libvips' process-wide settings at every task, after another thread set them back to sharp's defaults", async () => {
  await loadSharpInAnotherThread();
  // sharp's defaults, which the other thread's start restored for the whole process.
  expect(sharp.cache()).toMatchObject({ memory: { max: 50 }, files: { max: 20 }, items: { max: 100 } });
  sharp.concurrency(3);

  const blank = await sharp({ create: { width: 320, height: 200, channels: 3, background: '#ffffff' } })
    .jpeg()
    .toBuffer();
  await runVerificationTask({ kind: 'read_side', side: 'back', image: blank, acceptedTypes: ['dni'], today: '2026-11-30' });

  expect(sharp.cache()).toMatchObject({ memory: { max: 0 }, files: { max: 0 }, items: { max: 0 } });
  expect(sharp.concurrency()).toBe(1);
});
