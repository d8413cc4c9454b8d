import type { RouteContract } from '@idv/contracts';
import {
  checkDatabase,
  createServiceApp,
  jsonBody,
  mountRoutes,
  requireInternalToken,
  type Broker,
  type ClientAddresses,
  type Logger,
  type Metrics,
  type Redis,
} from '@idv/kit';
import type express from 'express';
import { dashboardInternalRoutes } from './http/internal-routes';
import { dashboardRouter } from './http/routes';
import type { DashboardPorts } from './use-cases/ports';

export interface DashboardDeps {
  ports: DashboardPorts;
  redis: Redis;
  /** The broker the owners' notices come from: part of readiness. */
  broker: Pick<Broker, 'check'>;
  logger: Logger;
  metrics: Metrics;
  clientAddresses: ClientAddresses;
  secureCookies: boolean;
  /** The CSRF tokens' HMAC key. */
  secret: string;
  internalToken: string;
  isShuttingDown?: () => boolean;
}

export function createApp(deps: DashboardDeps): express.Express {
  return createServiceApp({
    logger: deps.logger,
    metrics: deps.metrics,
    isShuttingDown: deps.isShuttingDown,
    parseJson: false,
    readiness: {
      postgres: () => checkDatabase(deps.ports.pool),
      redis: () => deps.redis.ping(),
      rabbitmq: () => deps.broker.check(),
    },
    routes: (app) => {
      app.use('/internal', requireInternalToken(deps.internalToken), ...jsonBody());
      mountRoutes(app, dashboardInternalRoutes, deps.ports);
      const pages = dashboardRouter(
        deps.ports,
        { secureCookies: deps.secureCookies, secret: deps.secret, clientAddresses: deps.clientAddresses },
        deps.logger,
      );
      // The pages' router answers every other path with a page; internal paths keep the kit's JSON answers.
      app.use((req, res, next) => (req.path.startsWith('/internal/') ? next() : pages(req, res, next)));
    },
  });
}

/** The contract entries this service mounts (checked against the contracts by a test). */
export const mountedRoutes: readonly RouteContract[] = dashboardInternalRoutes.map((mounted) => mounted.contract);
