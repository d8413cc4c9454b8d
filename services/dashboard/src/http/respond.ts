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
