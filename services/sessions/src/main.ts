import path from 'node:path';
import {
  Broker,
  Lifecycle,
  OUTBOX_MIGRATIONS_DIR,
  OutboxRelay,
  createLogger,
  createMetrics,
  createPool,
  migrate,
  runMain,
} from '@idv/kit';
import { createApp } from './app';
import { readConfig } from './config';
import { SessionsService } from './use-cases/sessions.service';
import { TimerSweeper } from './use-cases/timer-sweeper';

const SERVICE = 'sessions';
const SCHEMA = 'sessions';

runMain(SERVICE, async () => {
  const config = readConfig();
  const logger = createLogger({ service: SERVICE, level: config.LOG_LEVEL });
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS);
  const metrics = createMetrics(SERVICE);

  await migrate({
    url: config.DATABASE_URL,
    schema: SCHEMA,
    dirs: [OUTBOX_MIGRATIONS_DIR, path.join(__dirname, '..', 'migrations')],
    logger,
  });
  const pool = createPool({ url: config.DATABASE_URL, schema: SCHEMA, applicationName: SERVICE, max: config.DATABASE_POOL_MAX });
  lifecycle.onStop('postgres', () => pool.end());

  const broker = new Broker({ url: config.AMQP_URL, namespace: config.BROKER_NAMESPACE, logger });
  void broker.start();
  lifecycle.onStop('rabbitmq', () => broker.close());

  const relay = new OutboxRelay({ pool, broker, logger, schema: SCHEMA });
  await relay.start();
  lifecycle.onStop('outbox-relay', () => relay.stop());

  const service = new SessionsService({
    pool,
    metrics,
    timeScale: config.TIME_SCALE,
    bases: { publicBaseUrl: config.PUBLIC_BASE_URL, flowBaseUrl: config.FLOW_BASE_URL },
  });

  const sweeper = new TimerSweeper({
    pool,
    service,
    logger,
    metrics,
    timeScale: config.TIME_SCALE,
    ...(config.SWEEP_INTERVAL_MS ? { intervalMs: config.SWEEP_INTERVAL_MS } : {}),
  });
  sweeper.start();
  lifecycle.onStop('timer-sweeper', () => sweeper.stop());

  const app = createApp({
    pool,
    broker,
    logger,
    metrics,
    service,
    internalToken: config.INTERNAL_TOKEN,
    isShuttingDown: () => lifecycle.shuttingDown,
  });
  await lifecycle.listen(app, config.PORT, config.HOST);
  return lifecycle;
});
