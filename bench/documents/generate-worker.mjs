// A thread of the benchmark's corpus generation: renders one document's images into the corpus cache
// (packages/corpus `cachedDocumentImages`) and answers with their labels only.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parentPort } from 'node:worker_threads';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { cachedDocumentImages } = require(path.join(ROOT, 'packages/corpus/dist/index.js'));

parentPort.on('message', async ({ index, options, root }) => {
  try {
    const images = await cachedDocumentImages(root, index, options);
    parentPort.postMessage({ ok: true, labels: images.map(({ label }) => label) });
  } catch (error) {
    parentPort.postMessage({ ok: false, error: error.stack ?? String(error) });
  }
});
