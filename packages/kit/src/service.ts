import { Broker } from './broker';
import { OUTBOX_MIGRATIONS_DIR, createPool, migrate, type Pool } from './db';
import { Lifecycle } from './lifecycle';
import { createLogger, type Logger } from './logger';
import { createMetrics, type Metrics } from './metrics';
import { OutboxRelay } from './outbox';

/** What every service's main.ts starts with: its logger, metrics and lifecycle. */
export interface ServiceRuntime {
  service: string;
  logger: Logger;
  metrics: Metrics;
  lifecycle: Lifecycle;
}

export function startRuntime(service: string, config: { LOG_LEVEL: string; SHUTDOWN_TIMEOUT_MS: number }): ServiceRuntime {
  const logger = createLogger({ service, level: config.LOG_LEVEL });
  return { service, logger, metrics: createMetrics(service), lifecycle: new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS) };
}

export interface DatabaseOptions {
  url: string;
  schema: string;
  /** The service's own migrations folders, in order. */
  migrations: string[];
  /** Adds the kit's outbox table to the schema. */
  outbox?: boolean;
  max?: number;
  /** Session settings of this pool's connections (e.g. `synchronous_commit: 'off'`). */
  settings?: Record<string, string>;
  /** A distinct application_name, for a second pool of the same service. */
  name?: string;
  /** Skip the migrations (a second pool of a service that already migrated). */
  skipMigrations?: boolean;
}

/** Migrates the service's schema, then opens a pool in it that closes at shutdown. */
export async function openDatabase(runtime: ServiceRuntime, options: DatabaseOptions): Promise<Pool> {
  if (!options.skipMigrations) {
    const dirs = options.outbox ? [OUTBOX_MIGRATIONS_DIR, ...options.migrations] : options.migrations;
    await migrate({ url: options.url, schema: options.schema, dirs, logger: runtime.logger });
  }
  const name = options.name ?? runtime.service;
  const pool = createPool({
    url: options.url,
    schema: options.schema,
    applicationName: name,
    ...(options.max ? { max: options.max } : {}),
    ...(options.settings ? { settings: options.settings } : {}),
  });
  runtime.lifecycle.onStop(`postgres:${name}`, () => pool.end());
  return pool;
}

/** A broker that connects in the background (reconnecting) and closes at shutdown. */
export function connectBroker(runtime: ServiceRuntime, options: { url: string; namespace: string }): Broker {
  const broker = new Broker({ url: options.url, namespace: options.namespace, logger: runtime.logger });
  void broker.start();
  runtime.lifecycle.onStop('rabbitmq', () => broker.close());
  return broker;
}

/** Relays the schema's outbox to the broker until shutdown. */
export async function startOutboxRelay(
  runtime: ServiceRuntime,
  options: { pool: Pool; broker: Broker; schema: string },
): Promise<OutboxRelay> {
  const relay = new OutboxRelay({ ...options, logger: runtime.logger, metrics: runtime.metrics });
  await relay.start();
  runtime.lifecycle.onStop('outbox-relay', () => relay.stop());
  return relay;
}
