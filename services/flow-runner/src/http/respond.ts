import type { ServerResponse } from 'node:http';
import type { Locale } from '../domain/i18n';
import type { ShowResult } from '../domain/pages';
import { STATUS_CODE } from './pages';
import { handoverOffer, renderFlowPage, renderStatusPage } from './views/pages';
import { handoverCookie } from './security';

/** How the person's pages answer: an HTML page never cached, a 303 after a change, the JSON a waiting page polls. */

export function sendHtml(res: ServerResponse, status: number, body: string): void {
  res.statusCode = status;
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Vary', 'Accept-Language, Cookie');
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

export function redirect(res: ServerResponse, location: string): void {
  res.statusCode = 303;
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Location', location);
  res.setHeader('Content-Length', 0);
  res.end();
}

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.statusCode = status;
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Vary', 'Cookie');
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

export function sendStatus(res: ServerResponse, result: Exclude<ShowResult, { kind: 'flow' }>, locale: Locale): void {
  const options = {
    testMode: result.testMode,
    reasons: result.reasons,
    ...(result.sessionId ? { sessionId: result.sessionId } : {}),
  };
  sendHtml(res, STATUS_CODE[result.page], renderStatusPage(result.page, locale, options));
}

export const sendNotFound = (res: ServerResponse, locale: Locale) =>
  sendHtml(res, 404, renderStatusPage('not_found', locale, { testMode: false }));

/** What a chat app unfurling a link (or any HEAD) gets: a neutral page; nothing is redeemed or spent. */
export function sendPreview(res: ServerResponse, locale: Locale): void {
  sendHtml(res, 200, renderStatusPage('not_found', locale, { testMode: false, dataPage: 'preview' }));
}

/** A flow page, with its offer to continue on another device when it has one (and that offer's cookie). */
export async function sendShow(
  res: ServerResponse,
  result: ShowResult,
  locale: Locale,
  options: { baseUrl: string; secureCookies: boolean },
): Promise<void> {
  if (result.kind !== 'flow') return sendStatus(res, result, locale);
  let section;
  if (result.handover) {
    const { sessionId, handover } = result;
    const expiresInMs = handover.expiresAt - Date.now();
    section = await handoverOffer(`${options.baseUrl}/h/${sessionId}/${handover.token}`, expiresInMs);
    if (handover.issued) {
      res.setHeader('Set-Cookie', handoverCookie(sessionId, handover.token, expiresInMs / 1000, options.secureCookies));
    }
  }
  sendHtml(res, result.hasErrors ? 422 : 200, renderFlowPage(result, locale, section));
}
