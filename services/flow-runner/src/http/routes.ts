import { observeRequest, type AddressThrottle, type ClientAddresses, type Logger, type Metrics } from '@idv/kit';
import { match, type MatchFunction } from 'path-to-regexp';
import { pickLocale } from '../domain/i18n';
import type { FlowService } from '../use-cases/flow-service';
import { flowVersionPage, showFlowPage } from './actions/show-page';
import { openHandoverPage } from './actions/open-handover';
import { openLinkPage } from './actions/open-link';
import { submitStepPage } from './actions/submit-step';
import { STATIC_ASSETS, sendAsset } from './assets';
import type { PageAction, PageContext, PageHandler, UploadOptions } from './page-context';
import { failPage } from './page-failure';
import { setSecurityHeaders } from './security';

export interface FlowPagesOptions {
  flows: FlowService;
  logger: Logger;
  metrics: Metrics;
  secureCookies: boolean;
  /** Link opens per client address (`link_open`): guessing tokens meets a limit. */
  throttle: AddressThrottle;
  clientAddresses: ClientAddresses;
  /** The person's flow host (FLOW_BASE_URL): hand-over codes point at `${publicBaseUrl}/h/…`. */
  publicBaseUrl: string;
  uploads: UploadOptions;
}

const READ = ['GET', 'HEAD'] as const;

/**
 * The person's pages, one row per page action: methods, an express-style path, the action. The first
 * row whose method and path match answers; anything else goes to the service's express app (health,
 * metrics, 404). The path is also the route label of the request metrics.
 */
interface PageRow {
  methods: readonly string[];
  path: string;
  action: PageAction;
  /** The path may end with one `/` (the links people type or paste). */
  trailingSlash?: boolean;
}

const PAGE_TABLE: readonly PageRow[] = [
  { methods: READ, path: '/l/:token', action: openLinkPage, trailingSlash: true },
  { methods: READ, path: '/h/:sessionId/:token', action: openHandoverPage, trailingSlash: true },
  { methods: READ, path: '/s/:sessionId', action: showFlowPage, trailingSlash: true },
  { methods: ['POST'], path: '/s/:sessionId', action: submitStepPage, trailingSlash: true },
  { methods: READ, path: '/s/:sessionId/version', action: flowVersionPage },
  ...[...STATIC_ASSETS].map(([path, asset]): PageRow => ({ methods: READ, path, action: (_, { res }) => sendAsset(res, asset) })),
  {
    methods: READ,
    path: '/favicon.ico',
    action: (_, { res }) => {
      res.statusCode = 204;
      res.end();
    },
  },
];

/**
 * Matched with path-to-regexp, the matcher of express's own router, on plain node objects rather than
 * through express: a flow is a dozen requests, and express's per-request cost (~125 µs of CPU on a
 * 2-core machine) was a sixth of the flow-runner's work. Case-sensitive; parameters as sent (not
 * decoded: every parameter is checked against its id or token pattern).
 */
const MATCHERS: (PageRow & { match: MatchFunction<Partial<Record<string, string>>> })[] = PAGE_TABLE.map((row) => ({
  ...row,
  match: match<Partial<Record<string, string>>>(row.path, {
    decode: false,
    sensitive: true,
    trailing: row.trailingSlash === true,
  }),
}));

/** The person's pages: `/l/:token` (the session url), `/s/:sessionId` (the flow), `/h/…` (hand-over), the assets. */
export function flowPages(options: FlowPagesOptions): PageHandler {
  const { logger, metrics } = options;
  const ctx: PageContext = {
    flows: options.flows,
    logger,
    secureCookies: options.secureCookies,
    throttle: options.throttle,
    clientAddresses: options.clientAddresses,
    baseUrl: options.publicBaseUrl.replace(/\/+$/, ''),
    uploads: options.uploads,
    counters: {
      handovers: metrics.counter('flow_handovers_total', 'Hand-over URLs opened (continuing on another device), by outcome', [
        'outcome',
      ] as const),
      uploadsRefused: metrics.counter(
        'flow_uploads_refused_total',
        'Multipart submissions refused before or while their body was read, by HTTP status',
        ['status'] as const,
      ),
      submissions: metrics.histogram(
        'flow_step_submission_seconds',
        'Time to process one step submission',
        ['result'] as const,
        [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      ),
    },
  };
  metrics.gauge('flow_upload_bytes_held', 'Bytes of uploads held in memory now', [], function () {
    this.set(options.uploads.budget.held);
  });

  return (req, res) => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const pathname = query < 0 ? url : url.slice(0, query);
    const method = req.method ?? 'GET';
    let found: { route: string; action: PageAction; params: Partial<Record<string, string>> } | null = null;
    for (const row of MATCHERS) {
      if (!row.methods.includes(method)) continue;
      const matched = row.match(pathname);
      if (matched) {
        found = { route: row.path, action: row.action, params: matched.params };
        break;
      }
    }
    if (!found) return false;
    const { route, action, params } = found;
    observeRequest(req, res, { logger, metrics }, () => route);
    setSecurityHeaders(res);
    const request = { req, res, params, locale: pickLocale(req.headers['accept-language']) };
    try {
      void Promise.resolve(action(ctx, request)).catch((error: unknown) => failPage(logger, req, res, pathname, error));
    } catch (error) {
      failPage(logger, req, res, pathname, error);
    }
    return true;
  };
}
