// The benchmark's read pool, in a process of its own so that its memory is the pool's alone: starts
// `workers` threads of read-worker.mjs, feeds them the documents one at a time, and reports each
// result, the process's resident memory before the threads started and at its peak, and each thread's
// peak heap and off-heap memory.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

const HERE = path.dirname(fileURLToPath(import.meta.url));

process.once('message', async ({ documents, workers, acceptedTypes, frontAngle }) => {
  const baselineRss = process.memoryUsage().rss;
  let peakRss = baselineRss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 50);
  let next = 0;
  const threads = [];
  const run = async (id) => {
    const worker = new Worker(path.join(HERE, 'read-worker.mjs'));
    const ask = (message) =>
      new Promise((resolve, reject) => {
        const onMessage = (reply) => {
          worker.off('error', reject);
          resolve(reply);
        };
        worker.once('message', onMessage);
        worker.once('error', reject);
        worker.postMessage(message);
      });
    while (next < documents.length) {
      const position = next++;
      const reply = await ask({ kind: 'read', acceptedTypes, frontAngle, ...documents[position] });
      process.send({ kind: 'result', position, worker: id, ...reply });
    }
    const stopped = await ask({ kind: 'stop' });
    threads.push({ worker: id, peakHeap: stopped.peakHeap, peakExternal: stopped.peakExternal });
    await worker.terminate();
  };
  await Promise.all(Array.from({ length: workers }, (_, id) => run(id)));
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.resourceUsage().maxRSS * 1024);
  process.send({ kind: 'done', baselineRss, peakRss, threads }, () => process.exit(0));
});
