// The face step's work as the flow-runner runs it, for the face benchmarks (run.mjs, paired.mjs): in the
// process's own thread (`threads` 0) or on the service's pool (piscina, a dependency of the flow-runner, over
// @idv/faces' worker) of `threads` threads, each of which has loaded its models before this returns.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** `tree` is the checkout whose build runs (paired.mjs runs another one's); `sampleFile` a portrait to warm up on. */
export async function startFaceWork(tree, faces, sampleFile, threads) {
  if (threads === 0) {
    await faces.faceEngine();
    return { work: faces.IN_THREAD, pool: null };
  }
  const { Piscina } = createRequire(path.join(tree, 'services/flow-runner/package.json'))('piscina');
  const pool = new Piscina({
    filename: path.join(tree, 'packages/faces/dist/worker.js'),
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: Number.POSITIVE_INFINITY,
  });
  const work = faces.pooledFrameWork((task) => pool.run(task));
  // Every thread loads its models on its first task: one portrait each, all at once, before timing.
  const sample = fs.readFileSync(sampleFile);
  await work.detectFaces(
    Array.from({ length: threads }, () => sample),
    {},
  );
  return { work, pool };
}
