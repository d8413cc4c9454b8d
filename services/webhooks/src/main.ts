import path from 'node:path';
import pg from 'pg';
import { Broker, Lifecycle, createLogger, createMetrics, createPool, migrate, runMain, sleep } from '@idv/kit';
import { Dispatcher } from './adapters/dispatcher';
import { SESSION_EVENTS_BINDING, SESSION_EVENTS_QUEUE, sessionEventHandler } from './adapters/event-consumer';
import { HttpSender } from './adapters/http-sender';
import { SecretBox } from './adapters/secret-box';
import { webhookMetrics } from './adapters/webhook-metrics';
import { createApp } from './app';
import { readConfig } from './config';
import { timings } from './domain/schedule';

const SERVICE = 'webhooks';
const SCHEMA = 'webhooks';
const VERSION = '0.1.0';
export const USER_AGENT = `idv-webhooks/${VERSION}`;

/**
 * node-pg-migrate's lock is per database and it fails instead of waiting when another service of a
 * shared database migrates at the same moment: wait and try again (bounded).
 */
async function migrateWithRetry(run: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (attempt >= 40 || !/Another migration is already running/.test((error as Error).message)) throw error;
      await sleep(250 + Math.floor(Math.random() * 250));
    }
  }
}

runMain(SERVICE, async () => {
  const config = readConfig();
  const logger = createLogger({ service: SERVICE, level: config.LOG_LEVEL });
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);
  const t = timings(config.TIME_SCALE);

  await migrateWithRetry(() =>
    migrate({ url: config.DATABASE_URL, schema: SCHEMA, dirs: [path.join(__dirname, '..', 'migrations')], logger }),
  );
  const pool = createPool({ url: config.DATABASE_URL, schema: SCHEMA, applicationName: SERVICE, max: config.DATABASE_POOL_SIZE });
  lifecycle.onStop('postgres', () => pool.end());

  const metrics = createMetrics(SERVICE);
  const secrets = SecretBox.fromConfig(config.WEBHOOKS_SECRET_KEY, config.INTERNAL_TOKEN);
  const sender = new HttpSender({ allowLocalTargets: config.WEBHOOKS_ALLOW_LOCAL_TARGETS, timeoutMs: t.receiverTimeoutMs });
  lifecycle.onStop('http-sender', () => sender.close());

  const dispatcherUrl = new URL(config.DATABASE_URL);
  dispatcherUrl.searchParams.set('options', `-c search_path=${SCHEMA},public`);
  // The dispatcher's own pool commits its bookkeeping without waiting for the WAL flush: a crash can
  // lose the last few milliseconds of records, which only means those attempts are made again
  // (at-least-once). Fan-out and the API keep synchronous commits: nothing acked is ever lost.
  const dispatchPool = new pg.Pool({
    connectionString: config.DATABASE_URL,
    max: config.DATABASE_POOL_SIZE,
    options: `-c search_path=${SCHEMA},public -c synchronous_commit=off`,
    application_name: `${SERVICE}-dispatcher`,
    connectionTimeoutMillis: 5000,
  });
  dispatchPool.on('error', () => undefined);
  lifecycle.onStop('postgres-dispatcher', () => dispatchPool.end());

  const dispatcher = new Dispatcher({
    pool: dispatchPool,
    databaseUrl: dispatcherUrl.toString(),
    schema: SCHEMA,
    sender,
    secrets,
    timings: t,
    logger,
    metrics: webhookMetrics(metrics, pool),
    userAgent: USER_AGENT,
    concurrency: config.WEBHOOKS_CONCURRENCY,
    endpointConcurrency: config.WEBHOOKS_ENDPOINT_CONCURRENCY,
    pollMs: config.WEBHOOKS_POLL_MS,
  });
  await dispatcher.start();
  lifecycle.onStop('dispatcher', () => dispatcher.stop());

  const broker = new Broker({ url: config.AMQP_URL, namespace: config.BROKER_NAMESPACE, logger });
  await broker.consume({
    queue: SESSION_EVENTS_QUEUE,
    bindings: [SESSION_EVENTS_BINDING],
    prefetch: 32,
    handler: sessionEventHandler({ pool, logger, onQueued: () => dispatcher.wake() }),
  });
  void broker.start();
  lifecycle.onStop('rabbitmq', () => broker.close());

  const app = createApp({
    pool,
    broker,
    logger,
    metrics,
    secrets,
    internalToken: config.INTERNAL_TOKEN,
    allowLocalTargets: config.WEBHOOKS_ALLOW_LOCAL_TARGETS,
    onQueued: () => dispatcher.wake(),
    isShuttingDown: () => lifecycle.shuttingDown,
  });
  await lifecycle.listen(app, config.PORT, config.HOST);
  return lifecycle;
});
