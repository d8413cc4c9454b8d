import type { ErrorCode, RouteContract } from '@idv/contracts';
import type { Express, Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import { AppError } from '../errors';
import { routeTemplatesOf } from './route-labels';
import { parseInput } from './validate';

type Parsed<C, K extends 'params' | 'query' | 'headers'> = C extends { [P in K]: infer S extends z.ZodType }
  ? z.output<S>
  : Record<string, never>;

/** The request as the contract describes it, parsed; `req` and `res` for what the contract does not cover. */
export interface RouteInput<C extends RouteContract> {
  params: Parsed<C, 'params'>;
  query: Parsed<C, 'query'>;
  headers: Parsed<C, 'headers'>;
  body: C extends { body: infer S extends z.ZodType } ? z.output<S> : undefined;
  req: Request;
  res: Response;
}

type SuccessStatus<C extends RouteContract> = Extract<keyof C['responses'], 200 | 201 | 202 | 204>;
type ReplyOf<Status, Spec> = Spec extends { schema: infer S extends z.ZodType }
  ? { status: Status; body: z.input<S>; headers?: Record<string, string> }
  : { status: Status; body?: undefined; headers?: Record<string, string> };

/** A success the contract declares, with the body its schema describes; errors are thrown as `AppError`. */
export type RouteReply<C extends RouteContract> = {
  [S in SuccessStatus<C>]: ReplyOf<S, C['responses'][S]>;
}[SuccessStatus<C>];

/**
 * A handler answers with a reply the kit sends as JSON, or returns nothing once it has written the
 * response itself (stored idempotent replays, CSV streams, images). `deps` are the service's, given
 * when the routes are mounted: a route table is a plain module-level list.
 */
export type RouteHandler<C extends RouteContract, D> = (
  input: RouteInput<C>,
  deps: D,
) => Promise<RouteReply<C> | void> | RouteReply<C> | void;

export interface RouteOptions {
  /**
   * The answer to path parameters of the wrong shape: by default 422 `validation_failed`; a route whose
   * document promises 404 for a path that names nothing (the QR images) gives that instead.
   */
  paramsMismatch?: { code: ErrorCode; detail: string };
}

/** A contract entry bound to its handler: what a service mounts, and what it lists as mounted. */
export interface BoundRoute<D> {
  contract: RouteContract;
  /** The express handler over the service's dependencies. */
  handlerFor: (deps: D) => RequestHandler;
}

/** `/v1/qr/{token}.svg` → `/v1/qr/:token.svg`: express's syntax for the contract's OpenAPI path. */
export function expressPath(path: string): string {
  return path.replace(/\{([A-Za-z_]+)\}/g, ':$1');
}

/**
 * Node reads header bytes as Latin-1; a value is checked in the characters the client sent (UTF-8),
 * as the spec counts an Idempotency-Key's length.
 */
function declaredHeaders(req: Request, schema: z.ZodObject): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of Object.keys(schema.shape)) {
    const raw = req.header(name);
    if (raw !== undefined) values[name] = Buffer.from(raw, 'latin1').toString('utf8');
  }
  return values;
}

/**
 * The one way to serve a route: binds a contract entry (PUBLIC_ROUTES or INTERNAL_ROUTES) to its
 * handler. Params, query, body and the declared headers are parsed with the contract's schemas (422
 * `validation_failed` listing every bad field) before the handler runs; the handler's reply is typed
 * by the contract's success responses and sent as JSON.
 */
export function route<C extends RouteContract, D = unknown>(
  contract: C,
  handler: RouteHandler<C, D>,
  options: RouteOptions = {},
): BoundRoute<D> {
  const { params, query, body, headers } = contract;
  const parseParams = (req: Request): unknown => {
    if (!params) return req.params;
    if (options.paramsMismatch && !params.safeParse(req.params).success) {
      throw new AppError(options.paramsMismatch.code, options.paramsMismatch.detail);
    }
    return parseInput(params, req.params, 'params');
  };
  return {
    contract,
    handlerFor: (deps) => async (req, res) => {
      const input = {
        params: parseParams(req),
        query: query ? parseInput(query, req.query, 'query') : req.query,
        body: body ? parseInput(body, req.body ?? {}, 'body') : (req.body as unknown),
        headers: headers ? parseInput(headers, declaredHeaders(req, headers), 'headers') : {},
        req,
        res,
      } as RouteInput<C>;
      const reply = (await handler(input, deps)) as
        { status: number; body?: unknown; headers?: Record<string, string> } | undefined;
      if (!reply) return;
      for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
      if (reply.body === undefined) res.status(reply.status).end();
      else res.status(reply.status).json(reply.body);
    },
  };
}

/** Mounts routes on an express app or router, each at its contract's method and path. */
export function mountRoutes<D>(router: Router | Express, routes: readonly BoundRoute<D>[], deps: D): void {
  // An app routes as a router does; its `get(name)` settings overload hides that from the type.
  const target = router as Router;
  const templates = routeTemplatesOf(router);
  for (const { contract, handlerFor } of routes) {
    templates.add(contract.path, contract.method);
    // The contract's path is the route label of the request metrics, whatever the answer (route-labels.ts).
    const label: RequestHandler = (_req, res, next) => {
      res.locals.routeLabel = contract.path;
      next();
    };
    target[contract.method](expressPath(contract.path), label, handlerFor(deps));
  }
}
