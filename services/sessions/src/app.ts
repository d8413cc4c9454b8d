import type { RequestListener } from 'node:http';
import {
  checkDatabase,
  createServiceApp,
  mountLayers,
  requireIdentity,
  requireInternalToken,
  withFastRoutes,
  type Broker,
  type Logger,
  type Metrics,
  type Pool,
  type RouteLayer,
} from '@idv/kit';
import type { RouteContract } from '@idv/contracts';
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

/**
 * The public create, get and list, and the internal routes every person's flow calls: served without
 * express's router and body parser (`withFastRoutes`), with the same checks and answers.
 */
const FAST_OPERATIONS = new Set([
  'createVerificationSession',
  'getVerificationSession',
  'listVerificationSessions',
  'redeemLink',
  'getInternalSession',
  'reportActivity',
  'holdSession',
  'resolveSession',
]);

export function createApp(deps: SessionsDeps): RequestListener {
  const routeDeps: RouteDeps = { service: deps.service, pool: deps.pool, evidence: deps.evidence };
  // One list for express and the fast path: the same guards (one nonce window) before the same routes.
  const layers: RouteLayer<RouteDeps>[] = [
    { use: '/internal', handler: requireInternalToken(deps.internalToken) },
    { routes: internalRoutes },
    // The only public routes without a key: the gateway proxies them without an identity.
    { routes: qrRoutes },
    { use: '/v1', handler: requireIdentity(deps.internalToken) },
    // Sessions carry the person's link and, with opt-in options, personal data: no cache may keep them.
    {
      use: '/v1/verification-sessions',
      handler: (_req, res, next) => {
        res.setHeader('Cache-Control', 'no-store');
        next();
      },
    },
    { routes: publicRoutes },
  ];
  const app = createServiceApp({
    logger: deps.logger,
    metrics: deps.metrics,
    isShuttingDown: deps.isShuttingDown,
    readiness: { postgres: () => checkDatabase(deps.pool), rabbitmq: () => deps.broker.check() },
    routes: (express) => mountLayers(express, layers, routeDeps),
  });
  const fast = [...internalRoutes, ...publicRoutes].filter((bound) => FAST_OPERATIONS.has(bound.contract.operationId));
  // A misspelt or renamed operation would quietly fall back to express.
  if (fast.length !== FAST_OPERATIONS.size) throw new Error('an operation of FAST_OPERATIONS is not mounted');
  return withFastRoutes({ app, logger: deps.logger, metrics: deps.metrics, layers, deps: routeDeps, fast });
}

/** The contract entries this service mounts (checked against the contracts by a test). */
export const mountedRoutes: readonly RouteContract[] = [...internalRoutes, ...qrRoutes, ...publicRoutes].map(
  (mounted) => mounted.contract,
);
