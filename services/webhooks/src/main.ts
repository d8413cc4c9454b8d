// First: starts tracing (when configured) before the modules it instruments are loaded.
import './tracing';
import { connectBroker, DAY, EvidenceLinksClient, openDatabase, runMain, startOutboxRelay, startRuntime } from '@idv/kit';
import { HttpSender } from './adapters/http-sender';
import { SecretBox } from './adapters/secret-box';
import { webhookMetrics } from './adapters/webhook-metrics';
import { createApp } from './app';
import { readConfig } from './config';
import { DATABASE_SCHEMA } from './schema';
import { timings } from './domain/schedule';
import { deliveryJob } from './jobs/deliver-messages';
import { EventRetentionSweeper } from './jobs/event-retention';
import { SESSION_EVENTS_BINDING, SESSION_EVENTS_QUEUE, sessionEventHandler } from './jobs/session-events';

const SERVICE = 'webhooks';
const SCHEMA = DATABASE_SCHEMA.schema;
const VERSION = '0.1.0';
export const USER_AGENT = `idv-webhooks/${VERSION}`;

runMain(SERVICE, async () => {
  const config = readConfig();
  const runtime = startRuntime(SERVICE, config);
  const { logger, metrics, lifecycle } = runtime;
  const t = timings(config.TIME_SCALE);
  const database = {
    url: config.DATABASE_URL,
    // With the kit's outbox: the circuit's transitions are domain events (the dashboard mails the owner).
    ...DATABASE_SCHEMA,
    max: config.DATABASE_POOL_MAX,
  };
  const pool = await openDatabase(runtime, database);

  const secrets = SecretBox.fromConfig(config.WEBHOOKS_SECRET_KEY, config.INTERNAL_TOKEN);
  const sender = new HttpSender({ allowLocalTargets: config.WEBHOOKS_ALLOW_LOCAL_TARGETS, timeoutMs: t.receiverTimeoutMs });
  lifecycle.onStop('http-sender', () => sender.close());

  const dispatcherUrl = new URL(config.DATABASE_URL);
  dispatcherUrl.searchParams.set('options', `-c search_path=${SCHEMA},public`);
  // The dispatcher's own pool commits its bookkeeping without waiting for the WAL flush: a crash can
  // lose the last few milliseconds of records, which only means those attempts are made again
  // (at-least-once). Fan-out and the API keep synchronous commits: nothing acked is ever lost.
  const dispatchPool = await openDatabase(runtime, {
    ...database,
    name: `${SERVICE}-dispatcher`,
    settings: { synchronous_commit: 'off' },
    skipMigrations: true,
  });

  const dispatcher = deliveryJob({
    pool: dispatchPool,
    databaseUrl: dispatcherUrl.toString(),
    sender,
    secrets,
    timings: t,
    logger,
    metrics: webhookMetrics(metrics, pool),
    userAgent: USER_AGENT,
    concurrency: config.WEBHOOKS_CONCURRENCY,
    endpointConcurrency: config.WEBHOOKS_ENDPOINT_CONCURRENCY,
    pollMs: config.WEBHOOKS_POLL_MS,
    jobMetrics: metrics,
    evidence: new EvidenceLinksClient(config.FLOW_URL, config.INTERNAL_TOKEN, config.EVIDENCE_LINKS_TIMEOUT_MS),
  });
  await dispatcher.start();
  lifecycle.onStop('dispatcher', () => dispatcher.stop());

  const retention = new EventRetentionSweeper(
    { pool, logger, metrics },
    { retentionMs: config.ARTEFACT_RETENTION_DAYS * DAY, intervalMs: config.RETENTION_SWEEP_INTERVAL_MS },
  );
  await retention.start();
  lifecycle.onStop('retention-sweeper', () => retention.stop());

  const broker = connectBroker(runtime, { url: config.AMQP_URL, namespace: config.BROKER_NAMESPACE });
  await startOutboxRelay(runtime, { pool, broker, schema: SCHEMA });
  await broker.consume({
    queue: SESSION_EVENTS_QUEUE,
    bindings: [SESSION_EVENTS_BINDING],
    prefetch: 32,
    handler: sessionEventHandler({ pool, logger, onQueued: () => dispatcher.wake() }),
  });

  const app = createApp({
    pool,
    broker,
    logger,
    metrics,
    secrets,
    internalToken: config.INTERNAL_TOKEN,
    allowLocalTargets: config.WEBHOOKS_ALLOW_LOCAL_TARGETS,
    onQueued: () => dispatcher.wake(),
    retryPerSecond: config.WEBHOOKS_RETRY_PER_SECOND,
    isShuttingDown: () => lifecycle.shuttingDown,
  });
  await lifecycle.listen(app, config.PORT, config.HOST);
  return lifecycle;
});
