import type { IncomingMessage, ServerResponse } from 'node:http';
import { internalRoute, isArtefactId, isId, type ErrorCode } from '@idv/contracts';
import {
  observeRequest,
  route,
  writeError,
  writeProblem,
  type AddressThrottle,
  type ClientAddresses,
  type Logger,
  type Metrics,
} from '@idv/kit';
import { match } from 'path-to-regexp';
import { EVIDENCE_PATH_PREFIX } from '../domain/evidence';
import { type EvidenceLinks } from '../use-cases/evidence';
import { setSecurityHeaders } from './security';
import type { PageHandler } from './page-context';

const DOWNLOAD_ROUTE = `${EVIDENCE_PATH_PREFIX}/:sessionId/:artefactId`;
// Not decoded: the ids are checked against their patterns, and a malformed escape must not throw.
const matchDownload = match<{ sessionId: string; artefactId: string }>(DOWNLOAD_ROUTE, { decode: false });
/** Enough to tell clients apart in the audit; a longer header says nothing more. */
const USER_AGENT_MAX = 512;
/** The kit throttle's kind for downloads (limits from THROTTLE_EVIDENCE_DOWNLOADS_*, wired in main.ts). */
export const EVIDENCE_DOWNLOAD_THROTTLE = 'evidence_download';

export interface EvidenceRoutesOptions {
  evidence: EvidenceLinks;
  /**
   * Per client address, shared by the replicas; every download request counts, whatever its outcome. Its
   * refusals are counted in `throttled_requests_total{kind="evidence_download"}`, never audited row by row.
   */
  throttle: AddressThrottle;
  clientAddresses: ClientAddresses;
  logger: Logger;
  metrics: Metrics;
}

const REFUSALS: Record<'not_found' | 'bad_signature' | 'expired' | 'throttled', [ErrorCode, string]> = {
  not_found: ['not_found', 'No such evidence for this session.'],
  throttled: ['rate_limited', 'Too many evidence downloads from this address: wait Retry-After seconds.'],
  bad_signature: ['evidence_link_invalid', 'This evidence link is not valid: use the link exactly as it was sent.'],
  expired: ['evidence_link_expired', 'This evidence link has expired: GET the session again for fresh links.'],
};

/** A query value given exactly once; a repeated one is ambiguous and counts as absent. */
function single(query: URLSearchParams, name: string): string | undefined {
  const values = query.getAll(name);
  return values.length === 1 ? values[0] : undefined;
}

/**
 * Evidence downloads (`GET /evidence/{session_id}/{artefact_id}?expires=…&signature=…`, public: the
 * signature is the authorization). The internal link builder is a contract route (`internalRoutes`).
 */
export function evidenceRoutes(options: EvidenceRoutesOptions): PageHandler {
  const { evidence, logger, metrics } = options;
  const downloads = metrics.counter('evidence_downloads_total', 'Evidence link downloads, by outcome', ['outcome'] as const);

  async function download(req: IncomingMessage, res: ServerResponse, requestId: string, sessionId: string, artefactId: string) {
    const refuse = (kind: keyof typeof REFUSALS) => {
      downloads.inc({ outcome: kind });
      const [code, detail] = REFUSALS[kind];
      writeProblem(res, requestId, code, detail);
    };
    // Counted before anything else, so a throttled address learns nothing (not even which ids exist).
    // A refusal costs no lookup and no write: a flood of them must not grow the audit (the throttle counts them).
    const clientAddress = options.clientAddresses.of(req);
    const decision = await options.throttle.take(EVIDENCE_DOWNLOAD_THROTTLE, clientAddress);
    if (!decision.allowed) {
      res.setHeader('Retry-After', String(decision.retryAfterSeconds));
      return refuse('throttled');
    }
    if (!isId('session', sessionId) || !isArtefactId(artefactId)) return refuse('not_found');
    const url = req.url ?? '';
    const query = new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
    const userAgent = req.headers['user-agent'];
    const result = await evidence.download({
      sessionId,
      artefactId,
      expires: single(query, 'expires'),
      signature: single(query, 'signature'),
      clientAddress,
      userAgent: userAgent ? userAgent.slice(0, USER_AGENT_MAX) : null,
    });
    if (result.kind !== 'served') return refuse(result.kind);
    downloads.inc({ outcome: 'served' });
    const extension = result.artefact.contentType === 'image/png' ? 'png' : 'jpg';
    res.statusCode = 200;
    res.setHeader('Content-Type', result.artefact.contentType);
    res.setHeader('Content-Length', result.bytes.length);
    res.setHeader('Content-Disposition', `inline; filename="${sessionId}-${result.artefact.kind}.${extension}"`);
    // An integrator's back office may show the image from its own origin; the link is the authorization.
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.setHeader('X-Robots-Tag', 'noindex');
    res.end(result.bytes);
  }

  return (req, res) => {
    const url = req.url ?? '/';
    const pathname = url.split('?', 1)[0] ?? '/';
    const method = req.method ?? 'GET';
    let routeName: string;
    let work: (requestId: string) => Promise<void>;
    const matched = matchDownload(pathname);
    if (matched) {
      routeName = DOWNLOAD_ROUTE;
      // The request log and every error log see the path only: the signature is a bearer credential.
      (req as IncomingMessage & { originalUrl?: string }).originalUrl = pathname;
      if (method !== 'GET') {
        work = (requestId) => {
          req.resume();
          res.setHeader('Allow', 'GET');
          writeProblem(res, requestId, 'method_not_allowed', `${method} is not allowed here; use GET.`);
          return Promise.resolve();
        };
      } else {
        work = (requestId) => download(req, res, requestId, matched.params.sessionId, matched.params.artefactId);
      }
    } else {
      return false;
    }
    const requestId = observeRequest(req, res, { logger, metrics }, () => routeName);
    setSecurityHeaders(res);
    res.setHeader('Cache-Control', 'no-store');
    work(requestId).catch((error: unknown) => {
      if (!res.headersSent) res.setHeader('Connection', 'close');
      writeError(res, requestId, error, logger.child({ path: pathname }));
    });
    return true;
  };
}

/**
 * The flow-runner's service-to-service routes (INTERNAL_ROUTES): the sessions and webhooks services ask
 * for fresh signed links when they send a session that opted in.
 */
export const internalRoutes = [
  route(internalRoute('createEvidenceLinks'), async ({ body, res }, { evidence }: { evidence: EvidenceLinks }) => {
    res.setHeader('Cache-Control', 'no-store');
    return { status: 200, body: { sessions: await evidence.linksFor(body.session_ids.map((id) => id)) } };
  }),
];
