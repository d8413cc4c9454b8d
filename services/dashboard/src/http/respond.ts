import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { Logger } from '@idv/kit';
import type { Response } from 'express';

/** An HTML page, never cached (every page is someone's). */
export function sendHtml(res: Response, status: number, body: string): void {
  res.status(status);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Vary', 'Accept-Language, Cookie');
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.send(body);
}

/**
 * 303 to a path of this origin only: a `next` that is absolute, protocol-relative (`//evil`), or smuggles
 * a backslash falls back to the home page (no open redirect).
 */
export function redirect(res: Response, location: string): void {
  res.status(303);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Location', safeLocalPath(location));
  res.end();
}

export function safeLocalPath(location: string): string {
  return /^\/(?![/\\])[^\s\\]*$/.test(location) ? location : '/';
}

/**
 * A service's streamed answer (a CSV, an image) passed on as its bytes come: a slow browser holds the service
 * back, and one that leaves stops it. Cut short, it is left unfinished (never a short file that looks whole)
 * and logged at warn as `what` cut short. The status and headers are the caller's, set before.
 */
export async function passBody(res: Response, body: ReadableStream<Uint8Array>, logger: Logger, what: string): Promise<void> {
  try {
    await pipeline(Readable.fromWeb(body as NodeReadableStream<Uint8Array>), res);
  } catch (error) {
    logger.warn({ err: error, request_id: res.locals.requestId as string | undefined }, `${what} cut short`);
  }
}
