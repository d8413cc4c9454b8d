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
import type { RouteContract } from '@idv/contracts';
import type express from 'express';
import { internalRoutes, publicRoutes, qrRoutes, type RouteDeps } from './http/routes';
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
  const routeDeps: RouteDeps = { service: deps.service, pool: deps.pool, evidence: deps.evidence };
  return createServiceApp({
    logger: deps.logger,
    metrics: deps.metrics,
    isShuttingDown: deps.isShuttingDown,
    readiness: { postgres: () => checkDatabase(deps.pool), rabbitmq: () => deps.broker.check() },
    routes: (app) => {
      app.use('/internal', requireInternalToken(deps.internalToken));
      mountRoutes(app, internalRoutes, routeDeps);
      // The only public routes without a key: the gateway proxies them without an identity.
      mountRoutes(app, qrRoutes, routeDeps);
      app.use('/v1', requireIdentity(deps.internalToken));
      // Sessions carry the person's link and, with opt-in options, personal data: no cache may keep them.
      app.use('/v1/verification-sessions', (_req, res, next) => {
        res.setHeader('Cache-Control', 'no-store');
        next();
      });
      mountRoutes(app, publicRoutes, routeDeps);
    },
  });
}

/** The contract entries this service mounts (checked against the contracts by a test). */
export const mountedRoutes: readonly RouteContract[] = [...internalRoutes, ...qrRoutes, ...publicRoutes].map(
  (mounted) => mounted.contract,
);
