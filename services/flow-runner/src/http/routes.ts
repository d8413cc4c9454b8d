import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { isId } from '@idv/contracts';
import {
  answerWithoutBody,
  discardUnreadBody,
  observeRequest,
  type AddressThrottle,
  type ClientAddresses,
  type Logger,
  type Metrics,
} from '@idv/kit';
import getRawBody from 'raw-body';
import type { FlowService } from '../use-cases/flow-service';
import type { ShowResult, SubmitResult } from '../domain/pages';
import { messages, pickLocale, type Locale } from '../domain/i18n';
import { FACE_CAPTURE_SCRIPT_PATH } from '../domain/steps/face';
import {
  CAPTURE_SCRIPT_PATH,
  PROGRESS_SCRIPT_PATH,
  STATUS_CODE,
  STYLESHEET_PATH,
  handoverSection,
  renderErrorPage,
  renderFlowPage,
  renderStatusPage,
} from './pages';
import { BadRequest } from './bad-request';
import { MULTIPART_LIMIT_BYTES, UNREAD_UPLOAD_BOUNDS, readMultipart, type SubmittedForm } from './multipart';
import type { UploadBudget } from './upload-budget';
import {
  bindingCookie,
  bindingCookieName,
  handoverCookie,
  handoverCookieName,
  isPreviewBot,
  parseCookies,
  setSecurityHeaders,
} from './security';

const TOKEN_PATTERN = /^lt_[A-Za-z0-9_-]{8,200}$/;
const asset = (file: string, type: string) => ({ body: readFileSync(path.join(__dirname, '..', '..', 'assets', file)), type });
/** The pages' own stylesheet and scripts, read once: the CSP allows nothing else. */
const STATIC_ASSETS = new Map([
  [STYLESHEET_PATH, asset('flow.css', 'text/css; charset=utf-8')],
  [CAPTURE_SCRIPT_PATH, asset('capture.js', 'text/javascript; charset=utf-8')],
  [FACE_CAPTURE_SCRIPT_PATH, asset('face-capture.js', 'text/javascript; charset=utf-8')],
  [PROGRESS_SCRIPT_PATH, asset('progress.js', 'text/javascript; charset=utf-8')],
]);
/** A step's form is a few fields; anything bigger is refused before it is read whole. */
const FORM_LIMIT_BYTES = 32 * 1024;
const FORM_MAX_FIELDS = 100;

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

export interface UploadOptions {
  /** The bytes of uploads held in memory, per process and per client address. */
  budget: UploadBudget;
  minBytesPerSecond: number;
  rateWindowMs: number;
}

/** Answers the request when it is one of the person's pages; false leaves it to the service's express app. */
export type PageHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

const localeOf = (req: IncomingMessage): Locale => pickLocale(req.headers['accept-language']);

function sendHtml(res: ServerResponse, status: number, body: string): void {
  res.statusCode = status;
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Vary', 'Accept-Language, Cookie');
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

function redirect(res: ServerResponse, location: string): void {
  res.statusCode = 303;
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Location', location);
  res.setHeader('Content-Length', 0);
  res.end();
}

function sendStatus(res: ServerResponse, result: Exclude<ShowResult, { kind: 'flow' }>, locale: Locale): void {
  const options = {
    testMode: result.testMode,
    reasons: result.reasons,
    ...(result.sessionId ? { sessionId: result.sessionId } : {}),
  };
  sendHtml(res, STATUS_CODE[result.page], renderStatusPage(result.page, locale, options));
}

const notFoundPage = (res: ServerResponse, locale: Locale) =>
  sendHtml(res, 404, renderStatusPage('not_found', locale, { testMode: false }));

/**
 * The submitted form as the flow reads it: urlencoded fields, the first value of a repeated name. A
 * body of another type is not read (the submission then fails the CSRF check like an empty form).
 */
async function readForm(req: IncomingMessage): Promise<Record<string, string>> {
  const type = (req.headers['content-type'] ?? '').split(';', 1)[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    if (!(await discardUnreadBody(req)))
      throw new BadRequest(413, `a ${type ?? 'typeless'} body over the bounds of one dropped unread`);
    return {};
  }
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
    throw new BadRequest(415, `content-encoding ${encoding} is not accepted`);
  }
  const text = await getRawBody(req, {
    limit: FORM_LIMIT_BYTES,
    encoding: 'utf-8',
    ...(req.headers['content-length'] ? { length: req.headers['content-length'] } : {}),
  });
  const input: Record<string, string> = {};
  let fields = 0;
  for (const [name, value] of new URLSearchParams(text)) {
    if (++fields > FORM_MAX_FIELDS) throw new BadRequest(413, 'too many form fields');
    if (!(name in input)) input[name] = value;
  }
  return input;
}

/**
 * The person's pages: `/l/:token` (the session url), `/s/:sessionId` (the flow), the stylesheet.
 * Served on plain node objects rather than express: a flow is a dozen requests, and express's
 * per-request cost (~125 µs of CPU on a 2-core machine) was a sixth of the flow-runner's work.
 */
export function flowPages(options: FlowPagesOptions): PageHandler {
  const { flows, logger, metrics } = options;
  const handovers = metrics.counter('flow_handovers_total', 'Hand-over URLs opened (continuing on another device), by outcome', [
    'outcome',
  ] as const);
  const baseUrl = options.publicBaseUrl.replace(/\/+$/, '');

  /** A flow page, with its offer to continue on another device when it has one (and that offer's cookie). */
  async function sendShow(res: ServerResponse, result: ShowResult, locale: Locale): Promise<void> {
    if (result.kind !== 'flow') return sendStatus(res, result, locale);
    let section;
    if (result.handover) {
      const { sessionId, handover } = result;
      const expiresInMs = handover.expiresAt - Date.now();
      section = await handoverSection(locale, `${baseUrl}/h/${sessionId}/${handover.token}`, expiresInMs);
      if (handover.issued) {
        res.setHeader('Set-Cookie', handoverCookie(sessionId, handover.token, expiresInMs / 1000, options.secureCookies));
      }
    }
    sendHtml(res, result.hasErrors ? 422 : 200, renderFlowPage(result, locale, section));
  }

  /**
   * `/h/:sessionId/:token`, the hand-over URL of a camera page's QR code, opened on another device:
   * throttled and guarded against preview robots like a link open; when the token is alive and unused
   * the flow is bound to this browser, which lands on the current step.
   */
  async function openHandover(
    req: IncomingMessage,
    res: ServerResponse,
    sessionId: string,
    token: string,
    locale: Locale,
  ): Promise<void> {
    const decision = await options.throttle.take('link_open', options.clientAddresses.of(req));
    if (!decision.allowed) {
      handovers.inc({ outcome: 'throttled' });
      res.setHeader('Retry-After', String(decision.retryAfterSeconds));
      return sendHtml(res, STATUS_CODE.throttled, renderStatusPage('throttled', locale, { testMode: false }));
    }
    if (req.method === 'HEAD' || isPreviewBot(req.headers['user-agent'])) {
      handovers.inc({ outcome: 'preview' });
      const page = renderStatusPage('not_found', locale, { testMode: false });
      return sendHtml(res, 200, page.replace('data-page="not_found"', 'data-page="preview"'));
    }
    const result = isId('session', sessionId)
      ? await flows.handOver(sessionId, token)
      : ({ kind: 'status', page: 'handover_invalid' } as const);
    if (result.kind === 'status') {
      handovers.inc({ outcome: result.page === 'finished' ? 'finished' : 'invalid' });
      return sendHtml(res, STATUS_CODE[result.page], renderStatusPage(result.page, locale, { testMode: false }));
    }
    handovers.inc({ outcome: 'moved' });
    logger.info({ session_id: sessionId }, 'flow handed over to another device');
    res.setHeader('Set-Cookie', bindingCookie(sessionId, result.bindingSecret, options.secureCookies));
    redirect(res, `/s/${sessionId}`);
  }

  const uploadsRefused = metrics.counter(
    'flow_uploads_refused_total',
    'Multipart submissions refused before or while their body was read, by HTTP status',
    ['status'] as const,
  );
  metrics.gauge('flow_upload_bytes_held', 'Bytes of uploads held in memory now', [], function () {
    this.set(options.uploads.budget.held);
  });

  const submissions = metrics.histogram(
    'flow_step_submission_seconds',
    'Time to process one step submission',
    ['result'] as const,
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  );

  async function openLink(req: IncomingMessage, res: ServerResponse, token: string, locale: Locale): Promise<void> {
    const decision = await options.throttle.take('link_open', options.clientAddresses.of(req));
    if (!decision.allowed) {
      res.setHeader('Retry-After', String(decision.retryAfterSeconds));
      return sendHtml(res, STATUS_CODE.throttled, renderStatusPage('throttled', locale, { testMode: false }));
    }
    if (!TOKEN_PATTERN.test(token)) return notFoundPage(res, locale);
    if (req.method === 'HEAD' || isPreviewBot(req.headers['user-agent'])) {
      // A chat app unfurling the link (or any HEAD) gets a neutral page; the token stays unredeemed.
      const page = renderStatusPage('not_found', locale, { testMode: false });
      return sendHtml(res, 200, page.replace('data-page="not_found"', 'data-page="preview"'));
    }
    const cookies = parseCookies(req.headers.cookie);
    const opened = await flows.openLink(token, (sessionId) => cookies[bindingCookieName(sessionId)], locale);
    if (opened.kind === 'status') {
      return sendHtml(res, STATUS_CODE[opened.page], renderStatusPage(opened.page, locale, { testMode: false }));
    }
    if (opened.bindingSecret) {
      res.setHeader('Set-Cookie', bindingCookie(opened.sessionId, opened.bindingSecret, options.secureCookies));
    }
    redirect(res, `/s/${opened.sessionId}`);
  }

  async function show(req: IncomingMessage, res: ServerResponse, sessionId: string, locale: Locale): Promise<void> {
    if (!isId('session', sessionId)) return notFoundPage(res, locale);
    const cookies = parseCookies(req.headers.cookie);
    const shown = await flows.show(
      sessionId,
      cookies[bindingCookieName(sessionId)],
      locale,
      cookies[handoverCookieName(sessionId)],
    );
    await sendShow(res, shown, locale);
  }

  /**
   * `/s/:sessionId/version`: what a waiting page polls (progress.js). Only this browser's flow answers;
   * anything else is the same 404, so the endpoint tells no one whether a session exists.
   */
  async function sendVersion(req: IncomingMessage, res: ServerResponse, sessionId: string): Promise<void> {
    const cookies = parseCookies(req.headers.cookie);
    const version = isId('session', sessionId) ? await flows.version(sessionId, cookies[bindingCookieName(sessionId)]) : null;
    const body = JSON.stringify(version === null ? { error: 'not_found' } : { version });
    res.statusCode = version === null ? 404 : 200;
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Vary', 'Cookie');
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
  }

  async function submit(req: IncomingMessage, res: ServerResponse, sessionId: string, locale: Locale): Promise<void> {
    const started = process.hrtime.bigint();
    if (!isId('session', sessionId)) return answerWithoutBody(req, res, () => notFoundPage(res, locale), UNREAD_UPLOAD_BOUNDS);
    const type = (req.headers['content-type'] ?? '').split(';', 1)[0]?.trim().toLowerCase();
    const cookies = parseCookies(req.headers.cookie);
    const secret = cookies[bindingCookieName(sessionId)];
    const handoverToken = cookies[handoverCookieName(sessionId)];
    let form: SubmittedForm;
    const lease = options.uploads.budget.lease(options.clientAddresses.of(req));
    try {
      if (type === 'multipart/form-data') {
        if (Number(req.headers['content-length'] ?? 0) > MULTIPART_LIMIT_BYTES) {
          throw new BadRequest(413, 'photo over 10 MB', (l) => messages(l).document.refusals.too_large);
        }
        // Nothing of an upload is read before its browser is known to hold this flow: a stranger's body
        // is answered from its headers alone.
        const admission = await flows.admitSubmission(sessionId, secret);
        if (admission.kind === 'status')
          return answerWithoutBody(req, res, () => sendStatus(res, admission, locale), UNREAD_UPLOAD_BOUNDS);
        form = await readMultipart(req, {
          lease,
          minBytesPerSecond: options.uploads.minBytesPerSecond,
          rateWindowMs: options.uploads.rateWindowMs,
          admitFiles: (fields) =>
            admission.acceptsCsrf(fields._csrf)
              ? null
              : new BadRequest(403, 'file part before a valid CSRF token', undefined, { page: 'csrf' }),
        }).catch((error: unknown) => {
          if (error instanceof BadRequest) uploadsRefused.inc({ status: String(error.status) });
          throw error;
        });
      } else {
        form = { fields: await readForm(req), files: {} };
      }
      const result: SubmitResult = await flows.submit(sessionId, secret, form.fields, locale, form.files, handoverToken);
      submissions.observe(
        { result: result.kind === 'status' ? result.page : result.kind },
        Number(process.hrtime.bigint() - started) / 1e9,
      );
      if (result.kind === 'redirect') return redirect(res, `/s/${result.sessionId}`);
      await sendShow(res, result, locale);
    } finally {
      lease.release();
    }
  }

  /** Anything failing under these pages gets a page, not problem+json: the reader is a person. */
  function fail(req: IncomingMessage, res: ServerResponse, pathname: string, error: unknown): void {
    const locale = localeOf(req);
    const requestId = res.getHeader('x-request-id');
    if (res.headersSent) {
      logger.error({ err: error, request_id: requestId }, 'flow page failed after its headers were sent');
      res.destroy();
      return;
    }
    // raw-body's own errors (too large, aborted, bad length) carry a 4xx status like ours.
    const status = (error as { status?: number }).status;
    if (error instanceof BadRequest || (status !== undefined && status >= 400 && status < 500)) {
      const refusal = error instanceof BadRequest ? error : null;
      const page = refusal?.options.page;
      const tell = refusal?.tell?.(locale);
      const back = req.method === 'POST' && /^\/s\/[^/]+$/.test(pathname) ? pathname : null;
      if (refusal?.options.retryAfterSeconds) res.setHeader('Retry-After', String(refusal.options.retryAfterSeconds));
      answerWithoutBody(
        req,
        res,
        () =>
          page
            ? sendHtml(
                res,
                STATUS_CODE[page],
                renderStatusPage(page, locale, { testMode: false, ...(back ? { sessionId: back.slice(3) } : {}) }),
              )
            : sendHtml(res, status ?? 400, renderErrorPage(locale, tell ? back : null, tell)),
        UNREAD_UPLOAD_BOUNDS,
      );
      return;
    }
    logger.error(
      {
        err: error,
        request_id: requestId,
        method: req.method,
        path: pathname.replace(/(lt|ho)_[A-Za-z0-9_-]+/, '$1_[REDACTED]'),
      },
      'flow page failed',
    );
    const retry = req.method === 'POST' ? pathname : (req.url ?? null);
    sendHtml(res, 503, renderErrorPage(locale, retry));
  }

  return (req, res) => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const pathname = query < 0 ? url : url.slice(0, query);
    const method = req.method ?? 'GET';
    const read = method === 'GET' || method === 'HEAD';
    let route: string;
    let work: () => Promise<void> | void;
    const [, prefix, param] = /^\/(l|s)\/([^/]+)\/?$/.exec(pathname) ?? [];
    const handover = /^\/h\/([^/]+)\/([^/]+)\/?$/.exec(pathname);
    const versionOf = /^\/s\/([^/]+)\/version$/.exec(pathname);
    if (prefix === 'l' && param !== undefined && read) {
      route = '/l/:token';
      work = () => openLink(req, res, param, localeOf(req));
    } else if (handover && read) {
      const [, sessionId = '', token = ''] = handover;
      route = '/h/:sessionId/:token';
      work = () => openHandover(req, res, sessionId, token, localeOf(req));
    } else if (prefix === 's' && param !== undefined && (read || method === 'POST')) {
      route = '/s/:sessionId';
      work = () => (read ? show : submit)(req, res, param, localeOf(req));
    } else if (versionOf && read) {
      const [, sessionId = ''] = versionOf;
      route = '/s/:sessionId/version';
      work = () => sendVersion(req, res, sessionId);
    } else if (STATIC_ASSETS.has(pathname) && read) {
      const asset = STATIC_ASSETS.get(pathname)!;
      route = pathname;
      work = () => {
        res.setHeader('Cache-Control', 'public, max-age=3600');
        res.setHeader('Content-Type', asset.type);
        res.setHeader('Content-Length', asset.body.length);
        res.end(asset.body);
      };
    } else if (pathname === '/favicon.ico' && read) {
      route = '/favicon.ico';
      work = () => {
        res.statusCode = 204;
        res.end();
      };
    } else {
      return false;
    }
    observeRequest(req, res, { logger, metrics }, () => route);
    setSecurityHeaders(res);
    try {
      void Promise.resolve(work()).catch((error: unknown) => fail(req, res, pathname, error));
    } catch (error) {
      fail(req, res, pathname, error);
    }
    return true;
  };
}
