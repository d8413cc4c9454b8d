import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { newArtefactId, newId, type ArtefactId, type SessionId } from '@idv/contracts';
import {
  AddressThrottle,
  ClientAddresses,
  createLogger,
  createMetrics,
  createPool,
  createRedis,
  type Metrics,
  type Redis,
  type ThrottleLimit,
} from '@idv/kit';
import { infraFromEnv } from '@idv/testkit';
import type pg from 'pg';
import sharp from 'sharp';
import { request } from 'undici';
import { PgArtefactStore } from '../src/adapters/artefact.store';
import { PgEvidenceRepository } from '../src/adapters/evidence.repository';
import { PgFlowStore } from '../src/adapters/flow.repository';
import { artefactKeyring } from '../src/config';
import type { ArtefactKind } from '../src/domain/artefacts';
import { EvidenceSigner } from '../src/domain/evidence';
import { EvidenceLinks } from '../src/use-cases/evidence';
import { EVIDENCE_DOWNLOAD_THROTTLE, evidenceRoutes } from '../src/http/evidence';
import { buildFlowRecord } from './flow-records';
import { privateFlowDatabase } from './private-database';

/**
 * The evidence routes in-process on 127.0.0.1 over the real PostgreSQL (a database of the file's own)
 * and the real Redis throttle (a prefix of the run, so no other run's buckets count), the test behind a
 * trusted proxy naming its client address in `X-Forwarded-For`.
 */
export interface EvidenceRoute {
  pool: pg.Pool;
  metrics: Metrics;
  /** A flow with one stored capture of `kind` (under `id` when given); its session id and a fresh signed path to it. */
  captured(kind: ArtefactKind, id?: ArtefactId): Promise<{ sessionId: SessionId; artefactId: ArtefactId; path: string }>;
  download(path: string, address: string): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>;
  /** The value of a counter in the route's registry, 0 when never counted. */
  counted(name: string, labels: Record<string, string>): Promise<number>;
}

const keyring = artefactKeyring({ INTERNAL_TOKEN: 'evidence-route-test' });

/** Starts the route before the file's tests and stops it after them. */
export function evidenceRoute(label: string, limit: ThrottleLimit): EvidenceRoute {
  let database: Awaited<ReturnType<typeof privateFlowDatabase>>;
  let redis: Redis;
  let server: Server;
  let base: string;
  let links: EvidenceLinks;
  const route = { metrics: createMetrics(`evidence-${label}-test`) } as EvidenceRoute;

  beforeAll(async () => {
    database = await privateFlowDatabase(label);
    route.pool = createPool({ url: database.url, schema: 'flow', max: 4 });
    redis = createRedis(infraFromEnv().redisUrl);
    const logger = createLogger({ service: `evidence-${label}-test`, level: 'silent' });
    links = new EvidenceLinks(
      {
        port: new PgEvidenceRepository(route.pool, new PgArtefactStore(route.pool, keyring)),
        signer: new EvidenceSigner(Buffer.alloc(32, 7)),
        publicBaseUrl: 'http://127.0.0.1',
      },
      { timeScale: 1 },
    );
    const throttle = new AddressThrottle(
      redis,
      { [EVIDENCE_DOWNLOAD_THROTTLE]: limit },
      { logger, metrics: route.metrics, prefix: `idv:test:${randomBytes(4).toString('hex')}:` },
    );
    const routes = evidenceRoutes({
      evidence: links,
      throttle,
      clientAddresses: new ClientAddresses(['127.0.0.1']),
      logger,
      metrics: route.metrics,
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
    await route.pool?.end();
    await database?.drop();
  });

  route.captured = async (kind, id = newArtefactId()) => {
    const sessionId = newId('session');
    const flow = buildFlowRecord({ sessionId, mode: 'live', status: 'approved' });
    await new PgFlowStore(route.pool).insert(flow);
    const bytes = await sharp({ create: { width: 32, height: 20, channels: 3, background: '#336699' } })
      .jpeg()
      .toBuffer();
    await new PgArtefactStore(route.pool, keyring).put(route.pool, { id, sessionId, kind, bytes, contentType: 'image/jpeg' });
    const link = (await links.linksFor([sessionId]))[sessionId]!.find((made) => made.artifact === kind);
    const url = new URL(link!.url);
    return { sessionId, artefactId: id, path: url.pathname + url.search };
  };

  route.download = async (path, address) => {
    const response = await request(`${base}${path}`, {
      headers: { 'x-forwarded-for': address, 'user-agent': 'evidence-route-test/1.0' },
    });
    const body = Buffer.from(await response.body.arrayBuffer());
    return { status: response.statusCode, headers: response.headers, body };
  };

  route.counted = async (name, labels) => {
    const metric = (await route.metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
    const values = (metric?.values ?? []) as { value: number; labels: Record<string, unknown> }[];
    const matching = values.find((v) => Object.entries(labels).every(([key, value]) => v.labels[key] === value));
    return matching?.value ?? 0;
  };

  return route;
}
