import type { IncomingHttpHeaders } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import type { Pool } from 'undici';

/** Only these client headers travel upstream: nothing can smuggle an internal identity header. */
const FORWARDED_REQUEST_HEADERS = [
  'content-type',
  'content-length',
  'idempotency-key',
  'accept',
  'accept-language',
  'user-agent',
];
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-authenticate', 'trailer', 'te']);

function forwardedHeaders(headers: IncomingHttpHeaders, extra: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = headers[name];
    if (typeof value === 'string') out[name] = value;
  }
  return { ...out, ...extra };
}

export async function proxy(pool: Pool, req: Request, res: Response, extraHeaders: Record<string, string>): Promise<void> {
  const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
  const upstream = await pool.request({
    method: req.method,
    path: req.originalUrl,
    headers: forwardedHeaders(req.headers, extraHeaders),
    body: hasBody && req.method !== 'GET' && req.method !== 'HEAD' ? req : null,
  });
  res.status(upstream.statusCode);
  for (const [name, value] of Object.entries(upstream.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name) && name !== 'x-request-id') res.setHeader(name, value);
  }
  await pipeline(upstream.body, res);
}
