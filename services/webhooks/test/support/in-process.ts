import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { INTERNAL_HEADERS, type AccountId } from '@idv/contracts';
import { Broker, EvidenceLinksClient, createLogger, createMetrics, createPool, type Pool } from '@idv/kit';
import { infraFromEnv, privateServiceDatabase } from '@idv/testkit';
import { HttpSender } from '../../src/adapters/http-sender';
import { SecretBox } from '../../src/adapters/secret-box';
import { createApp } from '../../src/app';
import { timings } from '../../src/domain/schedule';
import { deliveryJob } from '../../src/jobs/deliver-messages';

export const INTERNAL_TOKEN = 'a-component-test-internal-token-of-32-chars';

/** An internal route's answer, its body parsed (null when empty). */
export interface InternalAnswer {
  status: number;
  headers: Headers;
  body: any;
}

export interface InProcessWebhooks {
  /** The file's own database (the service's schema migrated), for rows a test writes or reads directly. */
  pool: Pool;
  /** `http://127.0.0.1:<port>`, set once the app listens. */
  base: string;
  /** The file's dispatcher delivering to real receivers; null while a test has it stopped. */
  dispatcher: ReturnType<typeof deliveryJob> | null;
  /** Starts a new dispatcher (after `stopDispatcher`); the app's `onQueued` wakes whichever runs. */
  startDispatcher: () => Promise<void>;
  stopDispatcher: () => Promise<void>;
  /** An internal route with the internal token, a JSON body when given. */
  call: (method: string, route: string, body?: unknown) => Promise<InternalAnswer>;
  /** A new endpoint of the account to `url` through the internal route (201 asserted): its id and secret. */
  endpointOf: (accountId: AccountId, url: string, events?: string[]) => Promise<{ id: string; secret: string }>;
}

/**
 * The webhooks service in this process for a component test: its app (the internal routes under
 * `INTERNAL_TOKEN`) over a private database of the file's own, a real broker connection in a namespace of the
 * file, and its own dispatcher delivering to real receivers on 127.0.0.1 (local targets allowed) at the pace of
 * `timeScale`. Started before the file's tests, stopped and dropped after them.
 */
export function inProcessWebhooks(
  label: string,
  options: { timeScale: number; senderTimeoutMs?: number; retryPerSecond?: number },
): InProcessWebhooks {
  const logger = createLogger({ service: `webhooks-${label}-test`, level: 'silent' });
  const t = timings(options.timeScale);
  let database: Awaited<ReturnType<typeof privateServiceDatabase>> | undefined;
  let broker: Broker | undefined;
  let sender: HttpSender | undefined;
  let secrets: SecretBox;
  let server: Server | undefined;
  const service = { dispatcher: null } as InProcessWebhooks;

  const newDispatcher = () => {
    const dispatchUrl = new URL(database!.url);
    dispatchUrl.searchParams.set('options', '-c search_path=webhooks,public');
    return deliveryJob({
      pool: service.pool,
      databaseUrl: dispatchUrl.toString(),
      sender: sender!,
      secrets,
      timings: t,
      logger,
      metrics: { recordAttempt: () => undefined, recordFirstSuccess: () => undefined },
      userAgent: 'idv-webhooks/0.0.0-test',
      concurrency: 8,
      endpointConcurrency: 4,
      pollMs: 50,
      // No event here opted in to evidence links: the client is never called.
      evidence: new EvidenceLinksClient('http://127.0.0.1:9', INTERNAL_TOKEN, 1000),
    });
  };
  service.startDispatcher = async () => {
    const started = newDispatcher();
    service.dispatcher = started;
    await started.start();
  };
  service.stopDispatcher = async () => {
    await service.dispatcher?.stop();
    service.dispatcher = null;
  };

  beforeAll(async () => {
    database = await privateServiceDatabase({
      label: `webhooks_${label}`,
      schema: 'webhooks',
      migrationsDir: path.join(__dirname, '..', '..', 'migrations'),
    });
    service.pool = createPool({ url: database.url, schema: 'webhooks', max: 8 });
    broker = new Broker({ url: infraFromEnv().amqpUrl, namespace: `wh-${label}-${Math.random().toString(36).slice(2)}`, logger });
    await broker.start();
    secrets = SecretBox.fromConfig(undefined, INTERNAL_TOKEN);
    sender = new HttpSender({ allowLocalTargets: true, timeoutMs: options.senderTimeoutMs ?? t.receiverTimeoutMs });
    await service.startDispatcher();
    const app = createApp({
      pool: service.pool,
      broker,
      logger,
      metrics: createMetrics(`webhooks-${label}-test`),
      secrets,
      internalToken: INTERNAL_TOKEN,
      allowLocalTargets: true,
      onQueued: () => service.dispatcher?.wake(),
      ...(options.retryPerSecond === undefined ? {} : { retryPerSecond: options.retryPerSecond }),
    });
    server = await new Promise<Server>((resolve) => {
      const started = app.listen(0, '127.0.0.1', () => resolve(started));
    });
    service.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 60_000);

  afterAll(async () => {
    await service.stopDispatcher();
    await sender?.close();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await broker?.close();
    await service.pool?.end();
    await database?.drop();
  });

  service.call = async (method, route, body) => {
    const response = await fetch(`${service.base}${route}`, {
      method,
      headers: { 'content-type': 'application/json', [INTERNAL_HEADERS.token]: INTERNAL_TOKEN },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
  };

  service.endpointOf = async (accountId, url, events = ['verification_session.approved']) => {
    const created = await service.call('POST', `/internal/accounts/${accountId}/webhook-endpoints`, {
      url,
      events,
      description: 'Prueba',
    });
    expect(created.status).toBe(201);
    return created.body as { id: string; secret: string };
  };
  return service;
}
