import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';

const LOCAL_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/;
const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, X-Request-Id';
const EXPOSED_HEADERS =
  'RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, Retry-After, X-Request-Id, Idempotent-Replayed, Content-Disposition';

/**
 * CORS for the dashboard origin and local development only (spec "Authentication" 12): sets the
 * headers of an actual request and says whether the origin is permitted.
 */
export function corsPolicy(allowedOrigins: readonly string[]) {
  const allowed = new Set(allowedOrigins);
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const origin = req.headers.origin;
    res.setHeader('Vary', 'Origin');
    const permitted = origin !== undefined && (allowed.has(origin) || LOCAL_ORIGIN.test(origin));
    if (permitted) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    }
    return permitted;
  };
}

/** The express side: actual requests plus preflights. */
export function cors(allowedOrigins: readonly string[]): RequestHandler {
  const apply = corsPolicy(allowedOrigins);
  return (req, res, next) => {
    const permitted = apply(req, res);
    if (req.method === 'OPTIONS' && req.header('access-control-request-method')) {
      if (permitted) {
        res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE');
        res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
        res.setHeader('Access-Control-Max-Age', '600');
      }
      res.status(204).end();
      return;
    }
    next();
  };
}
