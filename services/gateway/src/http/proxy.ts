import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
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
const SMALL_BODY_BYTES = 64 * 1024;
/** How much of a body the service did not read the gateway still reads and drops to keep the client's connection. */
const UNREAD_BODY_DISCARD_BYTES = 1024 * 1024;
const UNREAD_BODY_DISCARD_MS = 1000;
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-authenticate', 'trailer', 'te']);

function forwardedHeaders(headers: IncomingHttpHeaders, extra: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = headers[name];
    if (typeof value === 'string') out[name] = value;
  }
  return { ...out, ...extra };
}

export async function proxy(
  pool: Pool,
  req: IncomingMessage,
  res: ServerResponse,
  extraHeaders: Record<string, string>,
): Promise<void> {
  const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
  // undici destroys the stream it was given as a body when the service answers before reading it all;
  // handing it a stream of our own keeps `req` alive so that the rest can still be read and dropped.
  const body = hasBody && req.method !== 'GET' && req.method !== 'HEAD' ? req.pipe(new PassThrough()) : null;
  const upstream = await pool.request({
    method: req.method as 'GET',
    path: req.url ?? '/',
    headers: forwardedHeaders(req.headers, extraHeaders),
    body,
  });
  res.statusCode = upstream.statusCode;
  // The service answered before reading the whole body (415, 413, 404…). Node would wait for those bytes
  // before parsing the client's next request on this keep-alive connection (it hung: found by the fuzz
  // suite), and a client still uploading when the connection closes sees EPIPE instead of the answer.
  // Read and drop a bounded rest so that the client reads the answer; past the bound, close after it.
  if (body && !req.complete && !(await discardUnreadBody(req, body))) res.setHeader('connection', 'close');
  for (const [name, value] of Object.entries(upstream.headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name) && name !== 'x-request-id') res.setHeader(name, value);
  }
  const length = Number(upstream.headers['content-length'] ?? Number.NaN);
  if (length <= SMALL_BODY_BYTES) {
    // Small JSON answers: one write is markedly cheaper than a stream pipeline (~130 µs a request).
    res.end(Buffer.from(await upstream.body.arrayBuffer()));
    return;
  }
  await pipeline(upstream.body, res);
}

/** Reads and drops what is left of an incomplete `req`; true when it ended within the byte and time bounds. */
function discardUnreadBody(req: IncomingMessage, body: PassThrough): Promise<boolean> {
  req.unpipe(body);
  return new Promise((resolve) => {
    let discarded = 0;
    const finish = (drained: boolean) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onStop).off('close', onStop);
      if (!drained) req.pause();
      resolve(drained);
    };
    const onData = (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > UNREAD_BODY_DISCARD_BYTES) finish(false);
    };
    const onEnd = () => finish(true);
    const onStop = () => finish(req.complete);
    const timer = setTimeout(() => finish(false), UNREAD_BODY_DISCARD_MS);
    req.on('data', onData).on('end', onEnd).on('error', onStop).on('close', onStop);
    req.resume();
  });
}
