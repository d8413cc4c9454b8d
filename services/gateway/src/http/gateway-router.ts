import {
  FORBIDDEN_BODY,
  buildOpenApiDocument,
  publicRoute,
  scopeSatisfies,
  type Identity,
  type PublicRoute,
  type ResolvedKey,
  type RouteTable,
} from '@idv/contracts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  AppError,
  identityContext,
  expressPath,
  identityHeaders,
  mountRoutes,
  observeRequest,
  route,
  writeError,
  type AddressThrottle,
  type ClientAddresses,
  type Logger,
  type Metrics,
  type ThrottleDecision,
} from '@idv/kit';
import { Router } from 'express';
import { BrokenContextError, type KeyResolver } from '../adapters/key-resolver';
import type { RateLimiter } from '../adapters/rate-limiter';
import type { Upstreams } from '../adapters/upstreams';
import { authorizationCount, readPresentedKey } from '../domain/credentials';
import { rateLimitHeaders } from '../domain/rate-limit';

import { proxy } from './proxy';

export interface GatewayDeps {
  routes: RouteTable;
  resolver: KeyResolver;
  limiter: RateLimiter;
  /** Per client address: failed authentications (`auth_failure`) and QR images (`qr`). */
  throttle: AddressThrottle;
  clientAddresses: ClientAddresses;
  upstreams: Upstreams;
  internalToken: string;
  publicBaseUrl: string;
  version: string;
  ratePerSecond: number;
  logger: Logger;
  metrics: Metrics;
  /** Sets the CORS headers of an actual request. */
  applyCors: (req: IncomingMessage, res: ServerResponse) => unknown;
  /** Key lookups this replica has in flight per client address, each holding one failure token. */
  lookupsInFlight: Map<string, number>;
}

const MAX_BODY_BYTES = 256 * 1024;

const FORBIDDEN = JSON.stringify(FORBIDDEN_BODY);

function forbidden(res: ServerResponse): void {
  res.statusCode = 403;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.end(FORBIDDEN);
}

/** The routes the gateway serves itself (the proxied ones are mounted by their services). */
export const gatewayRoutes = [
  route(publicRoute('getOpenApiDocument'), ({ res }, openApi: string) => {
    // Serialized once at start: the document is large and never changes while the process runs.
    res.type('application/json').send(openApi);
  }),
];

/** What the express app serves under `/v1`: the OpenAPI document (everything else takes the fast path). */
export function openApiRouter(deps: GatewayDeps): Router {
  const router = Router();
  mountRoutes(router, gatewayRoutes, JSON.stringify(buildOpenApiDocument(deps.publicBaseUrl, deps.version)));
  for (const { contract } of gatewayRoutes) {
    const allowed = contract.method.toUpperCase();
    router.all(expressPath(contract.path), () => {
      throw new AppError('method_not_allowed', `Use ${allowed} on this path.`, { headers: { Allow: allowed } });
    });
  }
  return router;
}

/** The paths of the routes the gateway serves itself (PUBLIC_ROUTES of service `gateway`; none has a parameter). */
const OWN_PATHS = gatewayRoutes.map(({ contract }) => contract.path);

/** Requests the fast path takes: every `/v1/...` but the gateway's own routes and CORS preflights. */
export function isProxied(req: IncomingMessage): boolean {
  const url = req.url ?? '';
  return url.startsWith('/v1/') && req.method !== 'OPTIONS' && !OWN_PATHS.some((path) => url.startsWith(path));
}

/**
 * Every proxied `/v1` request, on plain node objects (express costs ~10 % of the gateway's time per
 * request): match the contract's route, then for keyed routes authenticate → account status → rate
 * limit → scope, and proxy with a signed identity. Unkeyed routes are proxied as is.
 */
export function handleProxied(deps: GatewayDeps, req: IncomingMessage, res: ServerResponse): void {
  let routeLabel = 'unmatched';
  const requestId = observeRequest(req, res, deps, () => routeLabel);
  deps.applyCors(req, res);
  proxied(deps, req, res, requestId, (label) => (routeLabel = label)).catch((error: unknown) =>
    writeError(res, requestId, error, deps.logger),
  );
}

async function proxied(
  deps: GatewayDeps,
  req: IncomingMessage,
  res: ServerResponse,
  requestId: string,
  setRoute: (label: string) => void,
): Promise<void> {
  const path = (req.url ?? '').split('?')[0] ?? '';
  const match = deps.routes.match(req.method ?? 'GET', path);
  if (match.kind === 'not_found') throw new AppError('not_found', `No route ${req.method} ${path}.`);
  if (match.kind === 'method_not_allowed') {
    // A known path with another method: still labelled by its template (only unknown paths are `unmatched`).
    setRoute(match.path);
    throw new AppError('method_not_allowed', `Use ${match.allowed.join(' or ')} on this path.`, {
      headers: { Allow: match.allowed.join(', ') },
    });
  }
  const { route } = match;
  setRoute(route.path);

  let extraHeaders: Record<string, string> = { 'x-request-id': requestId };
  if (!route.scope && route.service === 'sessions') {
    // QR images answer without a key: guessing tokens is throttled per address instead.
    const decision = await deps.throttle.take('qr', deps.clientAddresses.of(req));
    if (!decision.allowed) throw tooManyFromAddress(decision, 'QR requests');
  }
  if (route.scope) {
    const context = await authorize(deps, route, req, res);
    if (!context) return;
    const request = { method: req.method ?? 'GET', url: req.url ?? '/', requestId };
    extraHeaders = { ...extraHeaders, ...identityHeaders(context, request, deps.internalToken) };
  }

  const declaredLength = Number(req.headers['content-length'] ?? 0);
  if (declaredLength > MAX_BODY_BYTES) throw new AppError('payload_too_large', 'The body exceeds 256 KiB.');

  try {
    await proxy(deps.upstreams.pool(route.service), req, res, extraHeaders);
  } catch (error) {
    if (res.headersSent) throw error;
    deps.logger.error({ err: error, service: route.service }, 'upstream unavailable');
    throw new AppError('upstream_unavailable', 'The service is temporarily unavailable; retry shortly.', {
      headers: { 'Retry-After': '1' },
    });
  }
}

/**
 * The identity part of the signed context per resolved key: the resolver hands out the same object
 * until the key is evicted, so it is encoded once per cache lifetime; the signature is per request.
 */
const contexts = new WeakMap<ResolvedKey, string>();

function contextOf(resolved: ResolvedKey): string {
  let context = contexts.get(resolved);
  if (context === undefined) {
    const identity: Identity = {
      account_id: resolved.account_id,
      key_id: resolved.key_id,
      mode: resolved.mode,
      scopes: resolved.scopes,
    };
    context = identityContext(identity);
    contexts.set(resolved, context);
  }
  return context;
}

function tooManyFromAddress(decision: ThrottleDecision, what: string): AppError {
  return new AppError('rate_limited', `Too many ${what} from this address; retry after the Retry-After delay.`, {
    headers: { 'Retry-After': String(decision.retryAfterSeconds) },
  });
}

/** A roll's scheduled revocation is honoured at its instant, also from a cached resolution. */
function isRefused(resolved: ResolvedKey): boolean {
  return resolved.revoked || (resolved.revokes_at !== null && Date.parse(resolved.revokes_at) <= Date.now());
}

/**
 * Asks the keys service for a key the cache does not hold. An address that keeps failing costs no more
 * lookups until it slows down: each lookup holds one failure token from before it starts until its
 * failure is counted, so one refilled token lets one lookup through, not a whole burst sent at once.
 * Returns null when the request was answered (refused).
 */
async function lookUp(
  deps: GatewayDeps,
  address: string,
  secretHash: string,
  refuse: () => Promise<null>,
): Promise<ResolvedKey | null> {
  const ahead = deps.lookupsInFlight.get(address) ?? 0;
  deps.lookupsInFlight.set(address, ahead + 1);
  try {
    const blocked = await deps.throttle.peek('auth_failure', address, ahead);
    if (!blocked.allowed) throw tooManyFromAddress(blocked, 'failed authentications');
    const resolved = await resolveKey(deps, secretHash);
    return resolved && !isRefused(resolved) ? resolved : await refuse();
  } finally {
    const left = (deps.lookupsInFlight.get(address) ?? 1) - 1;
    if (left > 0) deps.lookupsInFlight.set(address, left);
    else deps.lookupsInFlight.delete(address);
  }
}

async function resolveKey(deps: GatewayDeps, secretHash: string): Promise<ResolvedKey | null> {
  try {
    return await deps.resolver.resolve(secretHash);
  } catch (error) {
    // The keys service unreachable or failing (5xx) is transient: 503, which clients retry.
    deps.logger.error({ err: error }, 'key resolution failed');
    if (error instanceof BrokenContextError) {
      throw new AppError('unauthorized', 'The authorization context could not be established.');
    }
    throw new AppError('service_unavailable', 'Authentication is temporarily unavailable; retry shortly.', {
      headers: { 'Retry-After': '1' },
    });
  }
}

/** Returns the caller's identity context to sign, or answers the request itself and returns null. */
async function authorize(
  deps: GatewayDeps,
  route: PublicRoute,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<string | null> {
  const address = deps.clientAddresses.of(req);
  // A failed authentication answers the spec's 403; past a generous number per address, 429.
  const refuse = async (): Promise<null> => {
    const decision = await deps.throttle.take('auth_failure', address);
    if (!decision.allowed) throw tooManyFromAddress(decision, 'failed authentications');
    forbidden(res);
    return null;
  };
  if (authorizationCount(req.rawHeaders) > 1) return refuse();
  const presented = readPresentedKey(req.headers.authorization);
  if (!presented) return refuse();
  const cached = deps.resolver.cached(presented.secretHash);
  if (cached === null || (cached && isRefused(cached))) return refuse();
  const resolved = cached ?? (await lookUp(deps, address, presented.secretHash, refuse));
  if (!resolved) return null;
  if (resolved.mode !== presented.mode) {
    throw new AppError('unauthorized', 'The authorization context is inconsistent.');
  }
  if (resolved.account_status !== 'active') {
    throw new AppError(
      'account_inactive',
      `The account is ${resolved.account_status}; the API answers once an operator activates it.`,
    );
  }

  const decision = await deps.limiter.take(resolved.account_id);
  for (const [name, value] of Object.entries(rateLimitHeaders(decision, deps.ratePerSecond))) res.setHeader(name, value);
  if (!decision.allowed) {
    throw new AppError('rate_limited', 'Too many requests; slow down and retry after the Retry-After delay.', {
      headers: { 'Retry-After': String(decision.retryAfterSeconds) },
    });
  }

  if (!scopeSatisfies(resolved.scopes, route.scope!)) {
    throw new AppError('insufficient_scope', `This key lacks the scope ${route.scope}.`, { required_scope: route.scope! });
  }
  return contextOf(resolved);
}
