import {
  checkDatabase,
  createServiceApp,
  requireIdentity,
  requireInternalToken,
  type Broker,
  type Logger,
  type Metrics,
  type Pool,
} from '@idv/kit';
import type express from 'express';
import { internalRouter, publicRouter, qrHandler } from './http/routes';
import type { SessionEvidence } from './use-cases/evidence-links';
import type { SessionsService } from './use-cases/sessions.service';

export interface SessionsDeps {
  pool: Pool;
  broker: Broker;
  logger: Logger;
  metrics: Metrics;
  service: SessionsService;
  evidence: SessionEvidence;
  internalToken: string;
  isShuttingDown?: () => boolean;
}

export function createApp(deps: SessionsDeps): express.Express {
  return createServiceApp({
    logger: deps.logger,
    metrics: deps.metrics,
    isShuttingDown: deps.isShuttingDown,
    readiness: { postgres: () => checkDatabase(deps.pool), rabbitmq: () => deps.broker.check() },
    routes: (app) => {
      app.use('/internal', requireInternalToken(deps.internalToken), internalRouter(deps.service));
      // The only public route without a key: the gateway proxies it without an identity.
      app.get('/v1/qr/:file', qrHandler(deps.service));
      app.use('/v1', requireIdentity(deps.internalToken), publicRouter(deps.service, deps.pool, deps.evidence));
    },
  });
}
