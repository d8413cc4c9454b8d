#!/usr/bin/env node
// The rate limiter's Redis round trip alone: `node bench/gateway/redis-takes.mjs [--clients 50] [--seconds 4]
// [--rounds 3]` (after `pnpm exec turbo run build`, Redis on REDIS_URL or 127.0.0.1:6379).
//
// `--clients` loops each take a token of the kit's `TokenBuckets` (the gateway's `RateLimiter` underneath) and
// wait for the answer before the next, as the gateway's requests do, on one ioredis connection, with and
// without ioredis's auto-pipelining (commands of one event-loop turn sent in one write), the two alternating
// round by round. Prints takes per second, this process's CPU per take and the Redis server's CPU per take
// (from /proc/<pid>/stat, so the server is the machine's: run it on a quiet machine), with the yardstick.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { machineReference } from '../machine-reference.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(path.join(ROOT, 'packages', 'kit', 'package.json'));
const { Redis } = require('ioredis');
const { TokenBuckets } = require(path.join(ROOT, 'packages', 'kit', 'dist', 'index.js'));

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '50' },
    seconds: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '3' },
  },
});
const clients = Math.min(500, Math.max(1, Number(values.clients)));
const seconds = Math.min(30, Math.max(1, Number(values.seconds)));
const rounds = Math.min(10, Math.max(1, Number(values.rounds)));
const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const redisPid = Number(execFileSync('pgrep', ['-o', '-x', 'redis-server']).toString().trim());
const TICKS_PER_SECOND = 100;
/** The Redis server's CPU so far, µs (user + system of /proc/<pid>/stat). */
function redisCpuMicros() {
  const fields = readFileSync(`/proc/${redisPid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND;
}

async function measure(autoPipelining) {
  const redis = new Redis(url, { enableAutoPipelining: autoPipelining });
  const buckets = new TokenBuckets(redis);
  const prefix = `bench:redis-takes:${process.pid}:`;
  try {
    await buckets.take(`${prefix}warm`, 1e6, 1e6);
    let takes = 0;
    const end = performance.now() + seconds * 1000;
    const cpuBefore = process.cpuUsage();
    const redisBefore = redisCpuMicros();
    await Promise.all(
      Array.from({ length: clients }, async (_, client) => {
        while (performance.now() < end) {
          await buckets.take(`${prefix}${client % 5}`, 1e6, 1e6);
          takes++;
        }
      }),
    );
    const cpu = process.cpuUsage(cpuBefore);
    const redisCpu = redisCpuMicros() - redisBefore;
    return { takesPerSecond: takes / seconds, clientMicros: (cpu.user + cpu.system) / takes, redisMicros: redisCpu / takes };
  } finally {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  }
}

const yardstickBefore = await machineReference();
const rows = [];
for (let round = 1; round <= rounds; round++) {
  for (const auto of round % 2 === 1 ? [false, true] : [true, false]) rows.push({ round, auto, ...(await measure(auto)) });
}
const yardstickAfter = await machineReference();

console.log(
  `${clients} clients, ${seconds} s a run; yardstick ${Math.round(yardstickBefore)} / ${Math.round(yardstickAfter)} requests/s`,
);
console.log('| round | auto-pipelining | takes/s | client CPU µs per take | Redis CPU µs per take |');
console.log('| ---: | --- | ---: | ---: | ---: |');
for (const row of rows) {
  console.log(
    `| ${row.round} | ${row.auto ? 'on' : 'off'} | ${Math.round(row.takesPerSecond)} | ${row.clientMicros.toFixed(1)} | ${row.redisMicros.toFixed(1)} |`,
  );
}
