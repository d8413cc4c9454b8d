import {
  checkDatabase,
  createServiceApp,
  requireInternalToken,
  type Broker,
  type Logger,
  type Metrics,
  type Pool,
} from '@idv/kit';
import type express from 'express';
import { keysRouter } from './http/routes';

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
      app.use('/internal', requireInternalToken(deps.internalToken), keysRouter(deps.pool));
    },
  });
}
