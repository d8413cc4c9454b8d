import { Broker } from './broker';
import { OUTBOX_MIGRATIONS_DIR, createPool, migrate, type Pool, type PoolOptions } from './db';
import { Lifecycle } from './lifecycle';
import { checkSchema } from './migrations';
import { createLogger, type Logger } from './logger';
import { createMetrics, type Metrics } from './metrics';
import { OutboxRelay } from './outbox';
import { activeTraceIds, stopTracing, tracingEnabled } from './tracing';
import { watchPool } from './pool-metrics';

/** What every service's main.ts starts with: its logger, metrics and lifecycle. */
export interface ServiceRuntime {
  service: string;
  logger: Logger;
  metrics: Metrics;
  lifecycle: Lifecycle;
  /** Whether openDatabase migrates the schema before checking it (MIGRATE_ON_START; default true). */
  migrateOnStart?: boolean;
}

export interface RuntimeConfig {
  LOG_LEVEL: string;
  SHUTDOWN_TIMEOUT_MS: number;
  HTTP_KEEP_ALIVE_TIMEOUT_MS?: number;
  HTTP_HEADERS_TIMEOUT_MS?: number;
  HTTP_REQUEST_TIMEOUT_MS?: number;
  MIGRATE_ON_START?: boolean;
}

export function startRuntime(service: string, config: RuntimeConfig): ServiceRuntime {
  // With tracing on, every line carries the active span's trace_id and span_id beside the request id.
  const logger = createLogger({ service, level: config.LOG_LEVEL, ...(tracingEnabled() ? { mixin: activeTraceIds } : {}) });
  const serverTimeouts = {
    ...(config.HTTP_KEEP_ALIVE_TIMEOUT_MS ? { keepAliveTimeoutMs: config.HTTP_KEEP_ALIVE_TIMEOUT_MS } : {}),
    ...(config.HTTP_HEADERS_TIMEOUT_MS ? { headersTimeoutMs: config.HTTP_HEADERS_TIMEOUT_MS } : {}),
    ...(config.HTTP_REQUEST_TIMEOUT_MS ? { requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS } : {}),
  };
  const lifecycle = new Lifecycle(logger, config.SHUTDOWN_TIMEOUT_MS, serverTimeouts);
  // Registered first, so stopped last: the spans of the shutdown itself are sent too.
  if (tracingEnabled()) lifecycle.onStop('tracing', stopTracing);
  return {
    service,
    logger,
    metrics: createMetrics(service),
    lifecycle,
    migrateOnStart: config.MIGRATE_ON_START ?? true,
  };
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
  /** Skip the migrations and the schema check (a second pool of a service that already opened its schema). */
  skipMigrations?: boolean;
  /** This pool's type parsers (`createPool`'s `types`). */
  types?: PoolOptions['types'];
}

/**
 * Migrates the service's schema (unless the runtime's MIGRATE_ON_START is off), checks that it is exactly the
 * one this build knows (else a SchemaMismatchError: the service refuses to start), then opens a pool in it
 * that closes at shutdown.
 */
export async function openDatabase(runtime: ServiceRuntime, options: DatabaseOptions): Promise<Pool> {
  if (!options.skipMigrations) {
    const dirs = options.outbox ? [OUTBOX_MIGRATIONS_DIR, ...options.migrations] : options.migrations;
    if (runtime.migrateOnStart ?? true) {
      await migrate({ url: options.url, schema: options.schema, dirs, logger: runtime.logger });
    }
    await checkSchema({ url: options.url, schema: options.schema, dirs });
  }
  const name = options.name ?? runtime.service;
  const pool = createPool({
    url: options.url,
    schema: options.schema,
    applicationName: name,
    ...(options.max ? { max: options.max } : {}),
    ...(options.settings ? { settings: options.settings } : {}),
    ...(options.types ? { types: options.types } : {}),
  });
  runtime.lifecycle.onStop(`postgres:${name}`, () => pool.end());
  watchPool(runtime.metrics, name, pool);
  return pool;
}

/** A broker that connects in the background (reconnecting) and closes at shutdown. */
export function connectBroker(runtime: ServiceRuntime, options: { url: string; namespace: string }): Broker {
  const broker = new Broker({ url: options.url, namespace: options.namespace, logger: runtime.logger, metrics: runtime.metrics });
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
