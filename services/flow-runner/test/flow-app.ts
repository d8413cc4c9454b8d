import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { INTERNAL_HEADERS } from '@idv/contracts';
import { AddressThrottle, ClientAddresses, createLogger, createMetrics, createRedis, type Redis } from '@idv/kit';
import { infraFromEnv } from '@idv/testkit';
import { request } from 'undici';
import { PgEvidenceRepository } from '../src/adapters/evidence.repository';
import { SampleCatalog } from '../src/adapters/samples';
import { PgSessionCaptures } from '../src/adapters/session-captures.repository';
import { PgTimeline } from '../src/adapters/timeline.repository';
import { EngineUploadPorts } from '../src/adapters/upload-ports';
import { createApp } from '../src/app';
import { EvidenceSigner } from '../src/domain/evidence';
import type { SessionsPort } from '../src/domain/ports';
import { EVIDENCE_DOWNLOAD_THROTTLE } from '../src/http/evidence';
import { UploadBudget } from '../src/http/upload-budget';
import { EvidenceLinks } from '../src/use-cases/evidence';
import { FlowService } from '../src/use-cases/flow-service';
import { SessionCaptureReader } from '../src/use-cases/session-captures';
import { FlowTimelines } from '../src/use-cases/timeline';
import type { privateFlowStores } from './private-database';

/** An internal route's answer: status, headers, the body as bytes and as text. */
export interface InternalAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
  text: string;
}

export interface FlowApp {
  /** `http://127.0.0.1:<port>`, set once the app listens. */
  base: string;
  /** The token of the internal routes: `<label>-test-internal-token`. */
  internalToken: string;
  flows: FlowService;
  links: EvidenceLinks;
  /** GET of an internal route (`path` after `/internal`) with the internal token. */
  internal(path: string): Promise<InternalAnswer>;
}

/**
 * The flow-runner's whole app (`createApp`: the person's pages, evidence downloads, the internal timeline and
 * capture routes) in-process on 127.0.0.1 over `stores` (the file's own database, `privateFlowStores`), the
 * real Redis throttle under a prefix of the run (limits no test reaches), and the sessions service as the test
 * scripts it. Started before the file's tests (after the stores are opened) and stopped after them.
 */
export function flowApp(label: string, stores: ReturnType<typeof privateFlowStores>, sessions: SessionsPort): FlowApp {
  const app = { internalToken: `${label}-test-internal-token` } as FlowApp;
  let server: Server | undefined;
  let redis: Redis | undefined;

  beforeAll(async () => {
    const logger = createLogger({ service: `${label}-test`, level: 'silent' });
    const metrics = createMetrics(`${label}-test`);
    redis = createRedis(infraFromEnv().redisUrl);
    app.flows = new FlowService({
      store: stores.flows,
      sessions,
      sender: { send: () => Promise.reject(new Error('no code is sent in these tests')) },
      uploads: new EngineUploadPorts(new SampleCatalog('/nonexistent-samples')),
      readings: stores.artefacts,
      timeScale: 1,
    });
    app.links = new EvidenceLinks(
      {
        port: new PgEvidenceRepository(stores.pool, stores.artefacts),
        signer: new EvidenceSigner(Buffer.alloc(32, 5)),
        publicBaseUrl: 'http://127.0.0.1',
      },
      { timeScale: 1 },
    );
    const listener = createApp({
      pool: stores.pool,
      flows: app.flows,
      logger,
      metrics,
      secureCookies: false,
      throttle: new AddressThrottle(
        redis,
        { link_open: { perSecond: 100, burst: 1000 }, [EVIDENCE_DOWNLOAD_THROTTLE]: { perSecond: 100, burst: 1000 } },
        { logger, metrics, prefix: `idv:test:${randomBytes(4).toString('hex')}:` },
      ),
      clientAddresses: new ClientAddresses(['127.0.0.1']),
      publicBaseUrl: 'http://127.0.0.1',
      uploads: {
        budget: new UploadBudget({ processBytes: 8 * 1024 * 1024, addressBytes: 8 * 1024 * 1024 }),
        minBytesPerSecond: 1,
        rateWindowMs: 10_000,
      },
      evidence: { links: app.links, internalToken: app.internalToken },
      timelines: new FlowTimelines({ timeline: new PgTimeline(stores.pool), sessions }),
      captures: new SessionCaptureReader({ captures: new PgSessionCaptures(stores.pool, stores.artefacts), sessions }),
    });
    const started = createServer(listener);
    server = started;
    await new Promise<void>((resolve) => started.listen(0, '127.0.0.1', resolve));
    app.base = `http://127.0.0.1:${(started.address() as AddressInfo).port}`;
  }, 60_000);

  afterAll(async () => {
    const started = server;
    if (started) await new Promise((resolve) => started.close(resolve));
    await redis?.quit();
  });

  app.internal = async (path) => {
    const response = await request(`${app.base}/internal${path}`, { headers: { [INTERNAL_HEADERS.token]: app.internalToken } });
    const bytes = Buffer.from(await response.body.arrayBuffer());
    return { status: response.statusCode, headers: response.headers, bytes, text: bytes.toString('utf8') };
  };
  return app;
}
