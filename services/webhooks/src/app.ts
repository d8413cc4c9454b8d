import type { RouteContract } from '@idv/contracts';
import {
  checkDatabase,
  createServiceApp,
  mountRoutes,
  requireIdentity,
  requireInternalToken,
  type Broker,
  type Logger,
  type Metrics,
  type Pool,
} from '@idv/kit';
import type express from 'express';
import type { SecretSealer } from './domain/ports';
import { webhooksInternalRoutes } from './http/internal-routes';
import { listCursors, webhooksRoutes, type RouteDeps } from './http/routes';

export interface WebhooksDeps {
  pool: Pool;
  broker: Broker;
  logger: Logger;
  metrics: Metrics;
  secrets: SecretSealer;
  internalToken: string;
  allowLocalTargets: boolean;
  /** Tells the local dispatcher that something was queued (other replicas hear the NOTIFY). */
  onQueued: () => void;
  /** Sends per second of a retry of failed deliveries (default 10). */
  retryPerSecond?: number;
  isShuttingDown?: () => boolean;
}

/** WEBHOOKS_RETRY_PER_SECOND's default (config.ts). */
export const DEFAULT_RETRY_PER_SECOND = 10;

export function createApp(deps: WebhooksDeps): express.Express {
  const routeDeps: RouteDeps = {
    pool: deps.pool,
    secrets: deps.secrets,
    allowLocalTargets: deps.allowLocalTargets,
    onQueued: deps.onQueued,
    retryPerSecond: deps.retryPerSecond ?? DEFAULT_RETRY_PER_SECOND,
    cursors: listCursors(deps.internalToken),
  };
  return createServiceApp({
    logger: deps.logger,
    metrics: deps.metrics,
    isShuttingDown: deps.isShuttingDown,
    readiness: { postgres: () => checkDatabase(deps.pool), rabbitmq: () => deps.broker.check() },
    routes: (app) => {
      app.use('/v1', requireIdentity(deps.internalToken));
      mountRoutes(app, webhooksRoutes, routeDeps);
      app.use('/internal', requireInternalToken(deps.internalToken));
      mountRoutes(app, webhooksInternalRoutes, routeDeps);
    },
  });
}

/** The contract entries this service mounts (checked against the contracts by a test). */
export const mountedRoutes: readonly RouteContract[] = [...webhooksRoutes, ...webhooksInternalRoutes].map(
  (mounted) => mounted.contract,
);
