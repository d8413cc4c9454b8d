import type { RouteContract } from '@idv/contracts';
import {
  checkDatabase,
  createServiceApp,
  jsonBody,
  mountRoutes,
  requireInternalToken,
  type AddressThrottle,
  type ClientAddresses,
  type Logger,
  type Metrics,
  type Pool,
} from '@idv/kit';
import type { RequestListener } from 'node:http';
import type { EvidenceLinks } from './use-cases/evidence';
import type { FlowService } from './use-cases/flow-service';
import type { FlowTimelines } from './use-cases/timeline';
import type { SessionCaptureReader } from './use-cases/session-captures';
import { evidenceRoutes, internalRoutes } from './http/evidence';
import { timelineRoutes } from './http/timeline';
import { sessionCaptureRoutes } from './http/session-captures';
import type { UploadOptions } from './http/page-context';
import { flowPages } from './http/routes';

export interface FlowRunnerDeps {
  pool: Pool;
  flows: FlowService;
  logger: Logger;
  metrics: Metrics;
  secureCookies: boolean;
  throttle: AddressThrottle;
  clientAddresses: ClientAddresses;
  /** The person's flow host (FLOW_BASE_URL), for the hand-over codes of camera pages. */
  publicBaseUrl: string;
  /** Bounds of the photos and face frames held in memory while they arrive. */
  uploads: UploadOptions;
  isShuttingDown?: () => boolean;
  /** Evidence downloads and the internal link builder; both need the internal token to be served. */
  evidence?: { links: EvidenceLinks; internalToken: string };
  /** Sessions' timelines for the dashboard (served with the internal routes, under the same token). */
  timelines?: FlowTimelines;
  /** Sessions' captured images and evidence downloads for the dashboard (internal routes, the same token). */
  captures?: SessionCaptureReader;
}

/**
 * The person's pages (`/l/…`, `/s/…`, the stylesheet) on plain node objects; health, readiness,
 * metrics and unknown paths through the kit's express app.
 */
export function createApp(deps: FlowRunnerDeps): RequestListener {
  const app = createServiceApp({
    logger: deps.logger,
    metrics: deps.metrics,
    isShuttingDown: deps.isShuttingDown,
    readiness: { postgres: () => checkDatabase(deps.pool) },
    // The person's pages post HTML forms, read by the pages themselves; JSON only on the internal routes.
    parseJson: false,
    routes: (app) => {
      if (!deps.evidence) return;
      app.use('/internal', requireInternalToken(deps.evidence.internalToken), jsonBody());
      mountRoutes(app, internalRoutes, { evidence: deps.evidence.links });
      if (deps.timelines) mountRoutes(app, timelineRoutes, { timelines: deps.timelines });
      if (deps.captures) mountRoutes(app, sessionCaptureRoutes, { captures: deps.captures });
    },
  });
  const pages = flowPages(deps);
  const evidence = deps.evidence ? evidenceRoutes({ ...deps, evidence: deps.evidence.links }) : () => false;
  return (req, res) => {
    if (!pages(req, res) && !evidence(req, res)) void app(req, res);
  };
}

/** The contract entries this service mounts (checked against the contracts by a test). */
export const mountedRoutes: readonly RouteContract[] = [...internalRoutes, ...timelineRoutes, ...sessionCaptureRoutes].map(
  (mounted) => mounted.contract,
);
