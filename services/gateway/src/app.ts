import type { RequestListener } from 'node:http';
import type { RouteContract } from '@idv/contracts';
import { createServiceApp, type ReadinessCheck } from '@idv/kit';
import { cors, corsPolicy } from './http/cors';
import { gatewayRoutes, handleProxied, isProxied, openApiRouter, type GatewayDeps } from './http/gateway-router';

export interface AppDeps extends Omit<GatewayDeps, 'applyCors' | 'lookupsInFlight'> {
  corsOrigins: readonly string[];
  readiness: Record<string, ReadinessCheck>;
  isShuttingDown?: () => boolean;
}

/**
 * Proxied `/v1` requests take a fast path on plain node objects; everything else (health, metrics,
 * OpenAPI, CORS preflights, unknown paths) goes through the kit's express app.
 */
export function createApp(deps: AppDeps): RequestListener {
  const app = createServiceApp({
    logger: deps.logger,
    metrics: deps.metrics,
    readiness: deps.readiness,
    isShuttingDown: deps.isShuttingDown,
    parseJson: false,
    before: [cors(deps.corsOrigins)],
    // A preflight answered by the CORS middleware is labelled by the public route it asks about.
    routeTemplates: deps.routes.routes.map((route) => route.path),
    routes: (express) => express.use(openApiRouter({ ...deps, applyCors: () => undefined, lookupsInFlight: new Map() })),
  });
  const gateway: GatewayDeps = { ...deps, applyCors: corsPolicy(deps.corsOrigins), lookupsInFlight: new Map() };
  return (req, res) => {
    if (isProxied(req)) handleProxied(gateway, req, res);
    else void app(req, res);
  };
}

/** The contract entries this service mounts itself (checked against the contracts by a test). */
export const mountedRoutes: readonly RouteContract[] = gatewayRoutes.map((mounted) => mounted.contract);
