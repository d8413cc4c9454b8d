import type { IncomingMessage, ServerResponse } from 'node:http';
import { fastUlid, problem, type ErrorCode } from '@idv/contracts';
import { AppError } from '../errors';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';

const REQUEST_ID_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;
const QUIET_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * Gives a request its id (the caller's `x-request-id` when well formed) and, when it finishes, records
 * its duration by route template and writes one log line (cheaper than pino-http, ~40 µs a request).
 * Works on plain node requests, so a hot path can run without express.
 */
export function observeRequest(
  req: IncomingMessage & { originalUrl?: string },
  res: ServerResponse,
  deps: { logger: Logger; metrics: Metrics },
  route: () => string,
): string {
  const incoming = req.headers['x-request-id'];
  const requestId = typeof incoming === 'string' && REQUEST_ID_PATTERN.test(incoming) ? incoming : `req_${fastUlid()}`;
  res.setHeader('x-request-id', requestId);
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    const nanoseconds = Number(process.hrtime.bigint() - started);
    const method = req.method ?? 'GET';
    deps.metrics.httpDuration.observe({ method, route: route(), status: String(res.statusCode) }, nanoseconds / 1e9);
    const url = req.originalUrl ?? req.url ?? '';
    if (QUIET_PATHS.has(url.split('?')[0] ?? '')) return;
    const level = res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info';
    if (!deps.logger.isLevelEnabled(level)) return;
    deps.logger[level](
      {
        request_id: requestId,
        req: { method, url },
        res: { statusCode: res.statusCode },
        responseTime: Math.round(nanoseconds / 1e4) / 100,
      },
      'request completed',
    );
  });
  return requestId;
}

/** A problem+json answer on a plain node response (the express app has `sendProblem`). */
export function writeProblem(
  res: ServerResponse,
  requestId: string,
  code: ErrorCode,
  detail: string,
  extra: Parameters<typeof problem>[2] = {},
): void {
  const body = problem(code, detail, { request_id: requestId, ...extra });
  res.statusCode = body.status;
  res.setHeader('content-type', 'application/problem+json; charset=utf-8');
  res.end(JSON.stringify(body));
}

/**
 * Answers a failed request on a plain node response: an `AppError` as its problem (with its headers,
 * field errors and required scope), anything else logged and answered `internal_error`.
 */
export function writeError(res: ServerResponse, requestId: string, error: unknown, logger: Logger): void {
  if (res.headersSent) {
    logger.warn({ err: error, request_id: requestId }, 'response interrupted');
    res.destroy();
    return;
  }
  if (error instanceof AppError) {
    for (const [name, value] of Object.entries(error.extra.headers ?? {})) res.setHeader(name, value);
    writeProblem(res, requestId, error.code, error.message, {
      ...(error.extra.required_scope ? { required_scope: error.extra.required_scope } : {}),
      ...(error.extra.errors ? { errors: error.extra.errors } : {}),
    });
    return;
  }
  logger.error({ err: error, request_id: requestId }, 'unhandled error');
  writeProblem(
    res,
    requestId,
    'internal_error',
    'Something went wrong on our side; retry later or contact support with the request id.',
  );
}
