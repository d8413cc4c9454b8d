import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { isId } from '@idv/contracts';
import { observeRequest, type AddressThrottle, type ClientAddresses, type Logger, type Metrics } from '@idv/kit';
import busboy from 'busboy';
import getRawBody from 'raw-body';
import type { FlowService, ShowResult, SubmitResult } from '../domain/flow-service';
import { messages, pickLocale, type Locale } from '../domain/i18n';
import { CAPTURE_SCRIPT_PATH, STATUS_CODE, STYLESHEET_PATH, renderErrorPage, renderFlowPage, renderStatusPage } from './pages';
import { bindingCookie, bindingCookieName, isPreviewBot, parseCookies, setSecurityHeaders } from './security';

const TOKEN_PATTERN = /^lt_[A-Za-z0-9_-]{8,200}$/;
const STYLESHEET = readFileSync(path.join(__dirname, '..', '..', 'assets', 'flow.css'));
const CAPTURE_SCRIPT = readFileSync(path.join(__dirname, '..', '..', 'assets', 'capture.js'));
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
}

/** Answers the request when it is one of the person's pages; false leaves it to the service's express app. */
export type PageHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

/** A photo is at most this big; the rest of a multipart form is a few small fields. */
const UPLOAD_LIMIT_BYTES = 10 * 1024 * 1024;
const MULTIPART_MAX_FIELDS = 20;

/** An error that is the person's request's fault: answered with the error page and this status. */
class BadRequest extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** What the page tells the person (else the generic "something went wrong"). */
    readonly tell?: (locale: Locale) => string,
  ) {
    super(message);
  }
}

interface SubmittedForm {
  fields: Record<string, string>;
  /** The photo of a multipart submission (field `capture`), if one was sent. */
  upload?: Buffer;
}

/**
 * A multipart submission (a photo): the fields, and the one file, read into memory up to 10 MB. A
 * bigger file is refused with 413 as soon as it passes the limit, without reading the rest.
 */
function readMultipart(req: IncomingMessage): Promise<SubmittedForm> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: { fileSize: UPLOAD_LIMIT_BYTES, files: 1, fields: MULTIPART_MAX_FIELDS, fieldSize: 4096, parts: 25 },
      });
    } catch {
      reject(new BadRequest(400, 'malformed multipart form'));
      return;
    }
    const fields: Record<string, string> = {};
    let upload: Buffer | undefined;
    let failed = false;
    const fail = (error: BadRequest) => {
      if (failed) return;
      failed = true;
      req.unpipe(parser);
      req.resume();
      reject(error);
    };
    parser.on('field', (name, value) => {
      if (!(name in fields)) fields[name] = value;
    });
    parser.on('file', (name, stream) => {
      if (name !== 'capture') {
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () =>
        fail(new BadRequest(413, 'photo over 10 MB', (locale) => messages(locale).document.refusals.too_large)),
      );
      stream.on('end', () => {
        if (!failed) upload = Buffer.concat(chunks);
      });
    });
    parser.on('fieldsLimit', () => fail(new BadRequest(413, 'too many form fields')));
    parser.on('partsLimit', () => fail(new BadRequest(413, 'too many form parts')));
    parser.on('error', () => fail(new BadRequest(400, 'malformed multipart form')));
    parser.on('close', () => {
      if (!failed) resolve({ fields, ...(upload ? { upload } : {}) });
    });
    req.pipe(parser);
  });
}

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

function sendShow(res: ServerResponse, result: ShowResult, locale: Locale): void {
  if (result.kind === 'flow') {
    sendHtml(res, result.hasErrors ? 422 : 200, renderFlowPage(result, locale));
    return;
  }
  const options = { testMode: result.testMode, ...(result.sessionId ? { sessionId: result.sessionId } : {}) };
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
    req.resume();
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
    const secret = parseCookies(req.headers.cookie)[bindingCookieName(sessionId)];
    sendShow(res, await flows.show(sessionId, secret, locale), locale);
  }

  async function submit(req: IncomingMessage, res: ServerResponse, sessionId: string, locale: Locale): Promise<void> {
    const started = process.hrtime.bigint();
    if (!isId('session', sessionId)) {
      req.resume();
      return notFoundPage(res, locale);
    }
    const type = (req.headers['content-type'] ?? '').split(';', 1)[0]?.trim().toLowerCase();
    const declared = Number(req.headers['content-length'] ?? 0);
    if (type === 'multipart/form-data' && declared > UPLOAD_LIMIT_BYTES + 64 * 1024) {
      throw new BadRequest(413, 'photo over 10 MB', (l) => messages(l).document.refusals.too_large);
    }
    const form: SubmittedForm = type === 'multipart/form-data' ? await readMultipart(req) : { fields: await readForm(req) };
    const secret = parseCookies(req.headers.cookie)[bindingCookieName(sessionId)];
    const result: SubmitResult = await flows.submit(sessionId, secret, form.fields, locale, form.upload);
    submissions.observe(
      { result: result.kind === 'status' ? result.page : result.kind },
      Number(process.hrtime.bigint() - started) / 1e9,
    );
    if (result.kind === 'redirect') return redirect(res, `/s/${result.sessionId}`);
    sendShow(res, result, locale);
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
      res.setHeader('Connection', 'close');
      const tell = error instanceof BadRequest ? error.tell?.(locale) : undefined;
      const back = req.method === 'POST' && /^\/s\/[^/]+$/.test(pathname) ? pathname : null;
      sendHtml(res, status ?? 400, renderErrorPage(locale, tell ? back : null, tell));
      return;
    }
    logger.error(
      {
        err: error,
        request_id: requestId,
        method: req.method,
        path: pathname.replace(/lt_[A-Za-z0-9_-]+/, 'lt_[REDACTED]'),
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
    if (prefix === 'l' && param !== undefined && read) {
      route = '/l/:token';
      work = () => openLink(req, res, param, localeOf(req));
    } else if (prefix === 's' && param !== undefined && (read || method === 'POST')) {
      route = '/s/:sessionId';
      work = () => (read ? show : submit)(req, res, param, localeOf(req));
    } else if (pathname === STYLESHEET_PATH && read) {
      route = STYLESHEET_PATH;
      work = () => {
        res.setHeader('Cache-Control', 'public, max-age=3600');
        res.setHeader('Content-Type', 'text/css; charset=utf-8');
        res.setHeader('Content-Length', STYLESHEET.length);
        res.end(STYLESHEET);
      };
    } else if (pathname === CAPTURE_SCRIPT_PATH && read) {
      route = CAPTURE_SCRIPT_PATH;
      work = () => {
        res.setHeader('Cache-Control', 'public, max-age=3600');
        res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
        res.setHeader('Content-Length', CAPTURE_SCRIPT.length);
        res.end(CAPTURE_SCRIPT);
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
