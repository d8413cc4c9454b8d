import { problem, type ErrorCode, type Identity } from '@idv/contracts';
import express, { type ErrorRequestHandler, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import { AppError } from '../errors';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { identityOf } from './identity';
import { observeRequest, writeError } from './observe';
import { RouteTemplates, routeTemplatesOf } from './route-labels';
import { zodIssuesToFieldErrors } from './validate';

export const JSON_BODY_LIMIT = '256kb';
export type ReadinessCheck = () => Promise<unknown>;

export interface ServiceAppOptions {
  logger: Logger;
  metrics: Metrics;
  /** Dependencies `/readyz` checks, by name; each rejects when that dependency is not usable. */
  readiness: Record<string, ReadinessCheck>;
  /** Mounts the service routes. */
  routes: (app: express.Express) => void;
  /** Parse JSON bodies (off for the gateway, which streams bodies through). */
  parseJson?: boolean;
  /** Set during shutdown so `/readyz` answers 503 and load balancers stop sending. */
  isShuttingDown?: () => boolean;
  /** Runs before the routes (e.g. CORS), after request ids and logging. */
  before?: RequestHandler[];
  /**
   * Route templates to label requests by beyond those mounted with `mountRoutes` on the app (the
   * gateway's preflights of every public route).
   */
  routeTemplates?: readonly string[];
}

export function sendProblem(res: Response, code: ErrorCode, detail: string, extra: Parameters<typeof problem>[2] = {}) {
  const body = problem(code, detail, { request_id: res.locals.requestId as string | undefined, ...extra });
  res.status(body.status).type('application/problem+json').send(JSON.stringify(body));
}

/**
 * Route template for metrics labels, never the raw path (ids would explode the cardinality): the one
 * set by the route that answered, else the template of the path among the app's (an error before any
 * route ran: 401, 415, invalid JSON), else the express route of a page, else `unmatched`.
 */
function routeLabel(req: Request, res: Response, templates: readonly RouteTemplates[]): string {
  const label = res.locals.routeLabel as string | undefined;
  if (label) return label;
  const path = (req.originalUrl ?? req.url ?? '').split('?')[0] ?? '';
  for (const table of templates) {
    const matched = table.match(req.method, path);
    if (matched) return matched;
  }
  const route = req.route as { path?: string } | undefined;
  if (typeof route?.path === 'string') return `${req.baseUrl}${route.path}`;
  return 'unmatched';
}

function requiresJsonBody(req: Request): boolean {
  if (!['POST', 'PUT', 'PATCH'].includes(req.method)) return false;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Rejects bodies that are not declared as JSON with 415 before anything reads them. */
const requireJsonContentType: RequestHandler = (req, _res, next) => {
  if (requiresJsonBody(req) && !req.is(['application/json', 'application/*+json'])) {
    throw new AppError('unsupported_media_type', 'Send the body as application/json.');
  }
  next();
};

/**
 * JSON bodies as every service reads them: 415 for a body not declared as JSON, then express.json within
 * `JSON_BODY_LIMIT`. `createServiceApp` puts it before every route unless `parseJson: false`; a service
 * whose other paths take no JSON (the flow-runner's pages) puts it on its JSON routes only.
 */
export function jsonBody(): RequestHandler[] {
  return [
    requireJsonContentType,
    express.json({ limit: JSON_BODY_LIMIT, strict: true, type: ['application/json', 'application/*+json'] }),
  ];
}

export function createServiceApp(options: ServiceAppOptions): express.Express {
  const { logger, metrics } = options;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');

  const extraTemplates = new RouteTemplates();
  for (const template of options.routeTemplates ?? []) extraTemplates.add(template);
  const templates = [routeTemplatesOf(app), extraTemplates];
  app.use((req, res, next) => {
    res.locals.requestId = observeRequest(req, res, options, () => routeLabel(req, res, templates));
    next();
  });

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    if (options.isShuttingDown?.()) {
      res.status(503).json({ status: 'shutting_down' });
      return;
    }
    const entries = Object.entries(options.readiness);
    const results = await Promise.all(
      entries.map(async ([name, check]) => {
        try {
          await withTimeout(check(), 2000);
          return [name, 'ok'] as const;
        } catch (error) {
          logger.warn({ dependency: name, err: error }, 'readiness check failed');
          return [name, 'failing'] as const;
        }
      }),
    );
    const ok = results.every(([, state]) => state === 'ok');
    res.status(ok ? 200 : 503).json({ status: ok ? 'ok' : 'unavailable', checks: Object.fromEntries(results) });
  });
  app.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });

  for (const handler of options.before ?? []) app.use(handler);
  if (options.parseJson !== false) app.use(jsonBody());

  options.routes(app);

  app.use((req, res) => {
    sendProblem(res, 'not_found', `No route ${req.method} ${req.path}.`);
  });
  app.use(errorHandler(logger));
  return app;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

interface BodyParserError {
  type?: string;
  status?: number;
}

/** The answers to every error a route or a layer before it raises (the fast routes answer with it too). */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next: NextFunction) => {
    if (res.headersSent) {
      logger.error({ err: error, request_id: res.locals.requestId as string | undefined }, 'error after headers were sent');
      res.end();
      return;
    }
    if (error instanceof AppError) {
      writeError(res, res.locals.requestId as string, error, logger);
      return;
    }
    if (error instanceof z.ZodError) {
      const errors = zodIssuesToFieldErrors(error.issues);
      sendProblem(res, 'validation_failed', 'The request is invalid.', { errors });
      return;
    }
    // The router decodes path parameters before any handler runs: `%zz`, a lone `%` or bytes that are
    // not UTF-8 (`%FF`) fail there, and such a path names nothing valid (found by the fuzz suite).
    if (error instanceof URIError) {
      sendProblem(res, 'validation_failed', 'The request path is not valid percent-encoded UTF-8.', {
        errors: [{ path: 'params', message: 'must be valid percent-encoded UTF-8' }],
      });
      return;
    }
    const parserError = error as BodyParserError;
    switch (parserError.type) {
      case 'entity.parse.failed':
        sendProblem(res, 'invalid_json', 'The body is not valid JSON.');
        return;
      case 'entity.too.large':
        sendProblem(res, 'payload_too_large', `The body exceeds ${JSON_BODY_LIMIT}.`);
        return;
      case 'encoding.unsupported':
      case 'charset.unsupported':
        sendProblem(res, 'unsupported_media_type', 'Send the body as UTF-8 application/json.');
        return;
      case 'request.aborted':
      case 'request.size.invalid':
        sendProblem(res, 'invalid_json', 'The body was incomplete.');
        return;
      case undefined:
      default:
        break;
    }
    logger.error(
      { err: error, request_id: res.locals.requestId as string | undefined, method: req.method, url: req.originalUrl },
      'unhandled error',
    );
    sendProblem(res, 'internal_error', 'Something went wrong on our side; retry later or contact support with the request id.');
  };
}

export function identity(res: Response): Identity {
  return identityOf(res);
}
