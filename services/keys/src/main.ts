import path from 'node:path';
import { connectBroker, openDatabase, runMain, startOutboxRelay, startRuntime } from '@idv/kit';
import { createApp } from './app';
import { readConfig } from './config';

const SCHEMA = 'keys';

runMain('keys', async () => {
  const config = readConfig();
  const runtime = startRuntime('keys', config);
  const pool = await openDatabase(runtime, {
    url: config.DATABASE_URL,
    schema: SCHEMA,
    migrations: [path.join(__dirname, '..', 'migrations')],
    outbox: true,
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
