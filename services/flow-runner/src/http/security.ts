import { parse, serialize } from 'cookie';
import type { ServerResponse } from 'node:http';

/**
 * Every page: a strict CSP (own stylesheet and own camera script only, no inline script, forms only
 * to this origin, no framing), no caching of personal pages, no referrer (the link token must not leak).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "connect-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const SECURITY_HEADERS: ReadonlyArray<[string, string]> = [
  ['Content-Security-Policy', CONTENT_SECURITY_POLICY],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
  ['Referrer-Policy', 'no-referrer'],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Cross-Origin-Resource-Policy', 'same-origin'],
  // The document and face steps use this origin's camera; nothing else may.
  ['Permissions-Policy', 'camera=(self), microphone=(), geolocation=()'],
];

export function setSecurityHeaders(res: ServerResponse): void {
  for (const [name, value] of SECURITY_HEADERS) res.setHeader(name, value);
}

/** Link-preview robots (chat apps unfurling the link) must not burn the single-use token. */
const PREVIEW_BOTS =
  /(facebookexternalhit|facebot|whatsapp|telegrambot|slackbot|slack-imgproxy|twitterbot|discordbot|linkedinbot|skypeuripreview|googlebot|bingbot|applebot|embedly|pinterest|redditbot|vkshare|iframely)/i;

export const isPreviewBot = (userAgent: string | undefined) => !!userAgent && PREVIEW_BOTS.test(userAgent);

/** The request's cookies (`cookie`'s parser: the first of a repeated name, values URI-decoded when they can be). */
export function parseCookies(header: string | undefined): Record<string, string> {
  if (!header) return {};
  const parsed = parse(header);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) if (value !== undefined) out[name] = value;
  return out;
}

/** One cookie per session, so a browser can hold several flows; its value is the binding secret. */
export const bindingCookieName = (sessionId: string) => `idv_${sessionId}`;

export function bindingCookie(sessionId: string, secret: string, secure: boolean): string {
  return serialize(bindingCookieName(sessionId), secret, {
    path: '/',
    maxAge: 8 * 24 * 60 * 60, // a link lives at most 168 h
    httpOnly: true,
    sameSite: 'lax',
    secure,
  });
}

/**
 * The hand-over token a camera page showed, kept by the browser that shows it: the flow stores only its
 * hash, so this is how a reload shows the same code while it is alive. Sent only to that flow's pages.
 */
export const handoverCookieName = (sessionId: string) => `idv_ho_${sessionId}`;

export function handoverCookie(sessionId: string, token: string, maxAgeSeconds: number, secure: boolean): string {
  return serialize(handoverCookieName(sessionId), token, {
    path: `/s/${sessionId}`,
    maxAge: Math.max(1, Math.ceil(maxAgeSeconds)),
    httpOnly: true,
    sameSite: 'strict',
    secure,
  });
}
