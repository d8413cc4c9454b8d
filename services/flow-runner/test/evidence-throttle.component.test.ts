import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { fastUlid, newId } from '@idv/contracts';
import { AddressThrottle, ClientAddresses, createLogger, createMetrics, createPool, createRedis, type Redis } from '@idv/kit';
import { infraFromEnv } from '@idv/testkit';
import type pg from 'pg';
import sharp from 'sharp';
import { request } from 'undici';
import { PgArtefactStore } from '../src/adapters/artefact.store';
import { PgEvidenceRepository } from '../src/adapters/evidence.repository';
import { PgFlowStore } from '../src/adapters/flow.repository';
import { artefactKeyring } from '../src/config';
import { initialState } from '../src/domain/engine';
import { EvidenceLinks, EvidenceSigner } from '../src/domain/evidence';
import type { FlowRecord } from '../src/domain/flow-service';
import { EVIDENCE_DOWNLOAD_THROTTLE, evidenceRoutes } from '../src/http/evidence';
import { privateFlowDatabase } from './private-database';

/**
 * The per-address throttle of evidence downloads: the route in-process on 127.0.0.1 over the real
 * PostgreSQL (its own database) and the real Redis throttle, the test behind a trusted proxy naming
 * its client address. Limits are small (burst 4, one more every 20 s) so a bounded burst crosses them whatever the machine load.
 */
const BURST = 4;
let database: Awaited<ReturnType<typeof privateFlowDatabase>>;
let pool: pg.Pool;
let redis: Redis;
let server: Server;
let base: string;
let links: EvidenceLinks;
const keyring = artefactKeyring({ INTERNAL_TOKEN: 'evidence-throttle-test' });

beforeAll(async () => {
  database = await privateFlowDatabase('evidence_throttle');
  pool = createPool({ url: database.url, schema: 'flow', max: 4 });
  redis = createRedis(infraFromEnv().redisUrl);
  const logger = createLogger({ service: 'evidence-throttle-test', level: 'silent' });
  const metrics = createMetrics('evidence-throttle-test');
  const artefacts = new PgArtefactStore(pool, keyring);
  links = new EvidenceLinks(
    {
      port: new PgEvidenceRepository(pool, artefacts),
      signer: new EvidenceSigner(Buffer.alloc(32, 7)),
      publicBaseUrl: 'http://127.0.0.1',
    },
    { timeScale: 1 },
  );
  const throttle = new AddressThrottle(
    redis,
    { [EVIDENCE_DOWNLOAD_THROTTLE]: { perSecond: 0.05, burst: BURST } },
    // A prefix of this run: buckets of an earlier run or of the stack never count here.
    { logger, metrics, prefix: `idv:test:${randomBytes(4).toString('hex')}:` },
  );
  const routes = evidenceRoutes({
    evidence: links,
    internalToken: 'evidence-throttle-test',
    throttle,
    clientAddresses: new ClientAddresses(['127.0.0.1']),
    logger,
    metrics,
  });
  server = createServer((req, res) => {
    if (!routes(req, res)) res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await redis?.quit();
  await pool?.end();
  await database?.drop();
});

/** A flow with a stored front capture; returns its session id and a fresh signed path to it. */
async function capturedFront(): Promise<{ sessionId: string; path: string }> {
  const sessionId = newId('session');
  const flow: FlowRecord = {
    sessionId,
    accountId: newId('account'),
    mode: 'live',
    tokenHash: `hash-${sessionId}`,
    bindingHash: 'b'.repeat(64),
    csrfToken: 'csrf',
    config: { steps: [], options: {} } as unknown as FlowRecord['config'],
    state: initialState(),
    status: 'approved',
    locale: 'es',
    version: 0,
  };
  await new PgFlowStore(pool).insert(flow);
  const bytes = await sharp({ create: { width: 32, height: 20, channels: 3, background: '#336699' } })
    .jpeg()
    .toBuffer();
  await new PgArtefactStore(pool, keyring).put(pool, {
    id: `art_${fastUlid()}`,
    sessionId,
    kind: 'front',
    bytes,
    contentType: 'image/jpeg',
  });
  const [link] = (await links.linksFor([sessionId]))[sessionId]!;
  return { sessionId, path: new URL(link!.url).pathname + new URL(link!.url).search };
}

async function download(path: string, address: string) {
  const response = await request(`${base}${path}`, {
    headers: { 'x-forwarded-for': address, 'user-agent': 'throttle-test/1.0' },
  });
  const text = Buffer.from(await response.body.arrayBuffer());
  return { status: response.statusCode, headers: response.headers, body: text };
}

describe('evidence download throttle', () => {
  test('when one address downloads past its burst, then it gets 429 with Retry-After and a problem, each refusal is audited, and other addresses are served', async () => {
    const { sessionId, path } = await capturedFront();
    const address = '203.0.113.41';

    const answers = [];
    for (let i = 0; i < BURST + 3; i++) answers.push(await download(path, address));

    expect(answers.map((a) => a.status)).toEqual([...Array(BURST).fill(200), 429, 429, 429]);
    for (const refused of answers.slice(BURST)) {
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.headers['cache-control']).toBe('no-store');
      const problem = JSON.parse(refused.body.toString('utf8')) as { code: string; status: number };
      expect(problem).toMatchObject({ code: 'rate_limited', status: 429 });
    }
    const { rows } = await pool.query<{ outcome: string; client_address: string; user_agent: string }>(
      'SELECT outcome, client_address, user_agent FROM evidence_downloads WHERE session_id = $1 ORDER BY id',
      [sessionId],
    );
    expect(rows.map((r) => r.outcome)).toEqual([...Array(BURST).fill('served'), 'throttled', 'throttled', 'throttled']);
    for (const row of rows) expect(row).toMatchObject({ client_address: address, user_agent: 'throttle-test/1.0' });

    // Another address has its own bucket.
    expect((await download(path, '203.0.113.42')).status).toBe(200);
  });

  test('when a throttled address asks for evidence that does not exist, then it is 429 too and nothing is audited', async () => {
    const address = '203.0.113.51';
    const { path } = await capturedFront();
    for (let i = 0; i < BURST; i++) expect((await download(path, address)).status).toBe(200);
    const unknownSession = newId('session');

    const probes = [
      await download(`/evidence/${unknownSession}/art_${fastUlid()}?expires=1&signature=x`, address),
      await download('/evidence/not-an-id/nor-this', address),
    ];

    for (const probe of probes) expect(probe.status).toBe(429);
    const { rows } = await pool.query('SELECT 1 FROM evidence_downloads WHERE session_id = $1', [unknownSession]);
    expect(rows).toHaveLength(0);
  });
});
