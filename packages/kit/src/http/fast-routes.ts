import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import { JSON_BODY_LIMIT, errorHandler } from './app';
import { observeRequest } from './observe';
import { mountRoutes, type BoundRoute } from './route';
import { routeTemplatesOf } from './route-labels';

/**
 * What a service mounts after the kit's own layers, in order: a check on every path under a prefix
 * (`app.use(prefix, handler)`), or contract routes. One list builds the express app (`mountLayers`)
 * and the fast path (`withFastRoutes`), so the two cannot disagree on which checks guard a route.
 * A check before a fast route passes (`next()`) or throws at once, and reads the path from
 * `req.originalUrl` (express shortens `req.url` under a prefix; the fast path does not).
 */
export type RouteLayer<D> = { use: string; handler: RequestHandler } | { routes: readonly BoundRoute<D>[] };

export function mountLayers<D>(app: Express, layers: readonly RouteLayer<D>[], deps: D): void {
  for (const layer of layers) {
    if ('use' in layer) app.use(layer.use, layer.handler);
    else mountRoutes(app, layer.routes, deps);
  }
}

export interface FastRoutesOptions<D> {
  /** The service's app (`createServiceApp`), with `layers` mounted: it answers every request not taken here. */
  app: Express;
  logger: Logger;
  metrics: Metrics;
  layers: readonly RouteLayer<D>[];
  deps: D;
  /** The routes served without express's router and body parser (they must be among `layers`). */
  fast: readonly BoundRoute<D>[];
}

interface Entry {
  method: string;
  /** The path as express matches it: case-insensitive, a parameter is any segment. */
  pattern: RegExp;
  names: string[];
  label: string;
  /** Guards before the route, each with its prefix test. */
  guards: { prefix: RegExp; handler: RequestHandler }[];
  /** The express handler of a fast route; undefined for the others (express answers them). */
  handler?: RequestHandler;
  hasBody: boolean;
}

/** '256kb' as body-parser reads it (bytes' 1 kb = 1024 bytes). */
function limitBytes(limit: string): number {
  const kb = /^(\d+)kb$/.exec(limit);
  if (!kb) throw new Error(`JSON_BODY_LIMIT ${limit} is not in kb`);
  return Number(kb[1]) * 1024;
}
const LIMIT_BYTES = limitBytes(JSON_BODY_LIMIT);

/**
 * The only body shapes read here: a JSON type that `requireJsonContentType` and body-parser both accept
 * as it is, in UTF-8. Any other type, charset, a content encoding or a chunked body goes to express,
 * whose answer (415, the inflated body, another charset…) stays the reference.
 */
const PLAIN_JSON_TYPE = /^application\/json(?:; ?charset=(?:utf-8|"utf-8"))?$/i;
/** Parameter values taken here: no percent-decoding to do (express would answer a bad escape). */
const PLAIN_PARAM = /^[A-Za-z0-9_-]+$/;
/** body-parser's strict mode: the first character that is not JSON whitespace must open an object or array. */
const FIRST_NON_WHITESPACE = /^[ \t\n\r]*([^ \t\n\r]|$)/;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function compileRoute(path: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path
    .split(/(\{[A-Za-z_]+\})/)
    .map((part) => {
      const name = /^\{([A-Za-z_]+)\}$/.exec(part)?.[1];
      if (!name) return escapeRegExp(part);
      names.push(name);
      return '([^/]+)';
    })
    .join('');
  return { pattern: new RegExp(`^${source}$`, 'i'), names };
}

/** `app.use(prefix)`: the prefix itself or anything below it, case-insensitive. */
function compilePrefix(prefix: string): RegExp {
  return new RegExp(`^${escapeRegExp(prefix.replace(/\/+$/, ''))}(?:/|$)`, 'i');
}

/** No body (`undefined`), an empty JSON body (`{}`, as body-parser reads it), or one to read. */
type BodyPlan = 'none' | 'empty' | 'read';

/**
 * Whether this request's body is read here, and how; null sends it to express. Mirrors the kit's JSON
 * layer for the shapes it takes: no body (or `Content-Length: 0`) is `{}` to the route, as express gives it.
 */
function bodyPlan(req: IncomingMessage, entry: Entry): BodyPlan | null {
  const headers = req.headers;
  if (headers['transfer-encoding'] !== undefined) return null;
  const length = headers['content-length'];
  const type = headers['content-type'];
  if (length === undefined) return 'none';
  if (length === '0') return type === undefined ? 'none' : PLAIN_JSON_TYPE.test(type) ? 'empty' : null;
  if (!entry.hasBody || !/^\d{1,9}$/.test(length) || Number(length) > LIMIT_BYTES) return null;
  if (type === undefined || !PLAIN_JSON_TYPE.test(type) || headers['content-encoding'] !== undefined) return null;
  return 'read';
}

/** A body-parser error of the type the kit's error handler answers (400 `invalid_json`). */
function bodyError(type: 'entity.parse.failed' | 'request.aborted', message: string): Error {
  return Object.assign(new Error(message), { type, status: 400 });
}

/** Reads a body whose length is declared (and bounded), decoded and parsed as body-parser's strict JSON. */
function readJson(req: IncomingMessage, length: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
    };
    const onEnd = () => {
      cleanup();
      if (received !== length) {
        reject(bodyError('request.aborted', 'request size did not match content length'));
        return;
      }
      let text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received)).toString('utf8');
      // iconv-lite, which body-parser decodes with, drops a leading byte-order mark.
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      if (text.length === 0) {
        resolve({});
        return;
      }
      const first = text[0] === '{' || text[0] === '[' ? text[0] : FIRST_NON_WHITESPACE.exec(text)?.[1];
      if (first !== '{' && first !== '[') {
        reject(bodyError('entity.parse.failed', 'strict JSON violation'));
        return;
      }
      try {
        resolve(JSON.parse(text));
      } catch (error) {
        reject(bodyError('entity.parse.failed', (error as Error).message));
      }
    };
    const onAbort = () => {
      cleanup();
      reject(bodyError('request.aborted', 'request aborted'));
    };
    const onClose = () => {
      if (!req.complete) onAbort();
    };
    const cleanup = () => {
      req.off('data', onData).off('end', onEnd).off('error', onAbort).off('close', onClose);
    };
    req.on('data', onData).on('end', onEnd).on('error', onAbort).on('close', onClose);
  });
}

/** Runs a guard that passes (`next()`) or refuses (throws, or `next(error)`) before returning. */
function runGuard(handler: RequestHandler, req: Request, res: Response): void {
  let passed = false;
  let refused: unknown;
  void handler(req, res, ((error?: unknown) => {
    if (error !== undefined && error !== null) refused = error;
    else passed = true;
  }) as NextFunction);
  if (refused !== undefined)
    throw refused instanceof Error ? refused : new Error('a guard refused with a value that is not an error');
  if (!passed) throw new Error('a guard before a fast route must pass or refuse at once');
}

/**
 * The service's request listener: the `fast` routes are served on the request as node gives it — the
 * same request id, metrics and log line (`observeRequest`), the same JSON body rules and limits, the
 * same guards (the very instances express runs, so a nonce seen by one path is seen by the other), the
 * same contract parsing and handler (`route`'s), and the same error answers (the kit's error handler) —
 * without express's router, its middleware chain and body-parser (≈ 45–80 µs a request: issue 43).
 * Everything else, and any request whose shape the fast path does not take as is (a trailing slash, an
 * escaped or unusual path segment, HEAD, a chunked, encoded or non-UTF-8 body, another content type),
 * goes to `app`, whose answer is the reference.
 */
export function withFastRoutes<D>(options: FastRoutesOptions<D>): RequestListener {
  const { app, logger, metrics, deps } = options;
  const fast = new Set(options.fast);
  const entries: Entry[] = [];
  const guards: Entry['guards'] = [];
  for (const layer of options.layers) {
    if ('use' in layer) {
      guards.push({ prefix: compilePrefix(layer.use), handler: layer.handler });
      continue;
    }
    for (const bound of layer.routes) {
      const { pattern, names } = compileRoute(bound.contract.path);
      entries.push({
        method: bound.contract.method.toUpperCase(),
        pattern,
        names,
        label: bound.contract.path,
        guards: [...guards],
        ...(fast.has(bound) ? { handler: bound.handlerFor(deps) } : {}),
        hasBody: bound.contract.body !== undefined,
      });
      fast.delete(bound);
    }
  }
  if (fast.size > 0) throw new Error(`fast routes not among the layers: ${[...fast].map((r) => r.contract.path).join(', ')}`);
  const templates = routeTemplatesOf(app);
  const answerError = errorHandler(logger);

  const serve = async (
    req: Request,
    res: Response,
    entry: Entry & { handler: RequestHandler },
    path: string,
    plan: BodyPlan,
  ): Promise<void> => {
    const fail = (error: unknown) => answerError(error, req, res, () => undefined);
    try {
      if (plan === 'read') req.body = await readJson(req, Number(req.headers['content-length']));
      for (const guard of entry.guards) if (guard.prefix.test(path)) runGuard(guard.handler, req, res);
      res.locals.routeLabel = entry.label;
      await entry.handler(req, res, (error?: unknown) => {
        if (error !== undefined && error !== null) fail(error);
      });
    } catch (error) {
      fail(error);
    }
  };

  return (incoming: IncomingMessage, response: ServerResponse) => {
    const method = incoming.method;
    const url = incoming.url ?? '';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    if ((method !== 'GET' && method !== 'POST') || path.endsWith('/') || path.includes('#')) {
      void app(incoming, response);
      return;
    }
    // The first route express would dispatch to, in its order; express answers unless it is a fast one.
    let target: Entry | undefined;
    let values: RegExpExecArray | null = null;
    for (const entry of entries) {
      if (entry.method !== method) continue;
      values = entry.pattern.exec(path);
      if (values) {
        target = entry;
        break;
      }
    }
    const plan = target?.handler ? bodyPlan(incoming, target) : null;
    if (!target?.handler || !values || plan === null) {
      void app(incoming, response);
      return;
    }
    const params: Record<string, string> = {};
    for (let i = 0; i < target.names.length; i++) {
      const value = values[i + 1]!;
      if (!PLAIN_PARAM.test(value)) {
        void app(incoming, response);
        return;
      }
      params[target.names[i]!] = value;
    }

    // What `app.handle` and the router set up: express's request and response (res.json, req.header,
    // req.query with the app's query parser) for the route's own code. Every own property is set
    // before the prototypes change: V8 adds properties to an object whose prototype was swapped several
    // times slower (a micro-benchmark here: ≈ 3 against ≈ 27 µs for these; the first profile showed it).
    const req = incoming as Request;
    const res = response as Response;
    req.res = res;
    res.req = req;
    res.locals = Object.create(null) as Response['locals'];
    req.originalUrl = url;
    req.baseUrl = '';
    req.params = params;
    req.body = plan === 'empty' ? {} : undefined;
    Object.setPrototypeOf(req, app.request);
    Object.setPrototypeOf(res, app.response);
    // Labelled as express labels it: the template of the path until the route runs, then the route's.
    res.locals.requestId = observeRequest(
      req,
      res,
      { logger, metrics },
      () => (res.locals.routeLabel as string | undefined) ?? templates.match(method, path) ?? 'unmatched',
    );
    serve(req, res, target as Entry & { handler: RequestHandler }, path, plan).catch((error: unknown) => {
      // The error answer itself failed (express's final handler would close the response as well).
      logger.error({ err: error, request_id: res.locals.requestId as string }, 'error answer failed');
      res.destroy();
    });
  };
}
