import type { IncomingMessage, ServerResponse } from 'node:http';
import createCors from 'cors';
import type { RequestHandler } from 'express';

const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'];
const EXPOSED_HEADERS = [
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'RateLimit-Policy',
  'Retry-After',
  'X-Request-Id',
  'Idempotent-Replayed',
  'Content-Disposition',
];

/**
 * CORS for the dashboard's origin only (`cors`, the maintained middleware): the listed origins (the
 * dashboard's, `CORS_ORIGINS`; the local stack lists its own localhost one) get their origin reflected with
 * the exposed headers, and their preflights the methods, headers and a 10 min cache; any other origin,
 * another localhost port included, gets no CORS header at all.
 * Answers vary by Origin whatever it is, so no cache serves one origin's answer to another.
 */
function corsMiddleware(allowedOrigins: readonly string[]) {
  const allowed = new Set(allowedOrigins);
  return createCors({
    origin: (origin, permit) => permit(null, origin !== undefined && allowed.has(origin)),
    methods: ['GET', 'POST', 'PUT', 'DELETE'],
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
    optionsSuccessStatus: 204,
  });
}

/** The headers of an actual request, on plain node objects (the proxied `/v1` path). */
export function corsPolicy(allowedOrigins: readonly string[]) {
  const apply = corsMiddleware(allowedOrigins);
  return (req: IncomingMessage, res: ServerResponse): void => {
    res.setHeader('Vary', 'Origin');
    // The origin check is synchronous: the headers are set when this returns.
    apply(req, res, () => undefined);
  };
}

/** The express side: actual requests plus preflights (a preflight from any other origin: 204 and nothing granted). */
export function cors(allowedOrigins: readonly string[]): RequestHandler {
  const apply = corsMiddleware(allowedOrigins);
  return (req, res, next) => {
    res.setHeader('Vary', 'Origin');
    apply(req, res, (error?: unknown) => {
      if (error) return next(error);
      if (req.method === 'OPTIONS' && req.header('access-control-request-method')) {
        res.status(204).end();
        return;
      }
      next();
    });
  };
}
