import { checkDatabase, createServiceApp, type Logger, type Metrics, type Pool } from '@idv/kit';
import type express from 'express';
import type { FlowService } from './domain/flow-service';
import { flowRouter } from './http/routes';

export interface FlowRunnerDeps {
  pool: Pool;
  flows: FlowService;
  logger: Logger;
  metrics: Metrics;
  secureCookies: boolean;
  isShuttingDown?: () => boolean;
}

export function createApp(deps: FlowRunnerDeps): express.Express {
  return createServiceApp({
    logger: deps.logger,
    metrics: deps.metrics,
    isShuttingDown: deps.isShuttingDown,
    readiness: { postgres: () => checkDatabase(deps.pool) },
    // The person's pages post HTML forms (urlencoded), parsed per route; no JSON API here.
    parseJson: false,
    routes: (app) => {
      app.set('trust proxy', false);
      app.use(flowRouter({ flows: deps.flows, logger: deps.logger, metrics: deps.metrics, secureCookies: deps.secureCookies }));
    },
  });
}
