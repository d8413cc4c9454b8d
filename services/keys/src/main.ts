// First: starts tracing (when configured) before the modules it instruments are loaded.
import './tracing';
import { connectBroker, openDatabase, runMain, startOutboxRelay, startRuntime } from '@idv/kit';
import { createApp } from './app';
import { readConfig } from './config';
import { DATABASE_SCHEMA } from './schema';

const SCHEMA = DATABASE_SCHEMA.schema;

runMain('keys', async () => {
  const config = readConfig();
  const runtime = startRuntime('keys', config);
  const pool = await openDatabase(runtime, {
    url: config.DATABASE_URL,
    ...DATABASE_SCHEMA,
    max: config.DATABASE_POOL_MAX,
  });
  const broker = connectBroker(runtime, { url: config.AMQP_URL, namespace: config.BROKER_NAMESPACE });
  await startOutboxRelay(runtime, { pool, broker, schema: SCHEMA });

  const app = createApp({
    pool,
    broker,
    logger: runtime.logger,
    metrics: runtime.metrics,
    internalToken: config.INTERNAL_TOKEN,
    isShuttingDown: () => runtime.lifecycle.shuttingDown,
  });
  await runtime.lifecycle.listen(app, config.PORT, config.HOST);
  return runtime.lifecycle;
});
