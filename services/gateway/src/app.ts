import { createServiceApp, type Logger, type Metrics, type ReadinessCheck } from '@idv/kit';
import type express from 'express';
import { cors } from './http/cors';
import { gatewayRouter, type GatewayDeps } from './http/gateway-router';

export interface AppDeps extends GatewayDeps {
  logger: Logger;
  metrics: Metrics;
  corsOrigins: readonly string[];
  readiness: Record<string, ReadinessCheck>;
  isShuttingDown?: () => boolean;
}

export function createApp(deps: AppDeps): express.Express {
  return createServiceApp({
    logger: deps.logger,
    metrics: deps.metrics,
    readiness: deps.readiness,
    isShuttingDown: deps.isShuttingDown,
    parseJson: false,
    before: [cors(deps.corsOrigins)],
    routes: (app) => app.use(gatewayRouter(deps)),
  });
}
