import {
  checkDatabase,
  createServiceApp,
  mountRoutes,
  requireInternalToken,
  type Broker,
  type Logger,
  type Metrics,
  type Pool,
} from '@idv/kit';
import type { RouteContract } from '@idv/contracts';
import type express from 'express';
import { keysRoutes } from './http/routes';

export interface KeysDeps {
  pool: Pool;
  broker: Broker;
  logger: Logger;
  metrics: Metrics;
  internalToken: string;
  isShuttingDown?: () => boolean;
}

export function createApp(deps: KeysDeps): express.Express {
  return createServiceApp({
    logger: deps.logger,
    metrics: deps.metrics,
    isShuttingDown: deps.isShuttingDown,
    readiness: { postgres: () => checkDatabase(deps.pool), rabbitmq: () => deps.broker.check() },
    routes: (app) => {
      app.use('/internal', requireInternalToken(deps.internalToken));
      mountRoutes(app, keysRoutes, { pool: deps.pool });
    },
  });
}

/** The contract entries this service mounts (checked against the contracts by a test). */
export const mountedRoutes: readonly RouteContract[] = keysRoutes.map((mounted) => mounted.contract);
