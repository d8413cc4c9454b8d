// A yardstick for figures measured on different machines: how many requests per second a bare node
// HTTP server (its own process, as every service is) answers over loopback on this machine, with the
// same client and connection count the benchmarks use. Machines of one nominal size have differed
// several-fold here, so each benchmark prints this beside its own figures.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { Agent, request } = require(require.resolve('undici', { paths: [path.join(ROOT, 'packages/testkit')] }));

const SERVER = `
const server = require('node:http').createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': 2 });
  res.end('ok');
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

/**
 * Requests per second a bare node HTTP server answers here: `connections` clients for `seconds`, the
 * best of `rounds` (shared machines vary from second to second; the best is the machine itself).
 */
export async function machineReference({ connections = 16, seconds = 1, rounds = 3 } = {}) {
  const child = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const [chunk] = await once(child.stdout, 'data');
    const origin = `http://127.0.0.1:${String(chunk).trim()}`;
    const agent = new Agent({ connections });
    const run = async (until) => {
      let answered = 0;
      await Promise.all(
        Array.from({ length: connections }, async () => {
          while (performance.now() < until) {
            const res = await request(origin, { dispatcher: agent });
            await res.body.dump();
            answered++;
          }
        }),
      );
      return answered;
    };
    await run(performance.now() + 500); // warm-up
    let best = 0;
    for (let round = 0; round < rounds; round++) {
      const started = performance.now();
      const answered = await run(started + seconds * 1000);
      best = Math.max(best, answered / ((performance.now() - started) / 1000));
    }
    await agent.close();
    return best;
  } finally {
    child.kill();
  }
}
