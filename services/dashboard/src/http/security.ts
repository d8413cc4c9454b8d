import { parse, serialize } from 'cookie';
import type { RequestHandler, Response } from 'express';

/** Every page: its own stylesheet only, forms only to this origin, never framed, never cached, no referrer. */
const SECURITY_HEADERS: ReadonlyArray<[string, string]> = [
  [
    'Content-Security-Policy',
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  ],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
  ['Referrer-Policy', 'no-referrer'],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['Cross-Origin-Resource-Policy', 'same-origin'],
  ['Permissions-Policy', 'camera=(), microphone=(), geolocation=()'],
];

export const securityHeaders: RequestHandler = (_req, res, next) => {
  for (const [name, value] of SECURITY_HEADERS) res.setHeader(name, value);
  next();
};

/** `req.cookies` as the CSRF library reads it (`cookie`'s parser: the first of a repeated name). */
export const parseCookies: RequestHandler = (req, _res, next) => {
  const parsed = parse(req.headers.cookie ?? '');
  const cookies: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) if (value !== undefined) cookies[name] = value;
  (req as { cookies?: Record<string, string> }).cookies = cookies;
  next();
};

export const cookiesOf = (req: { cookies?: Record<string, string> }): Record<string, string> => req.cookies ?? {};

/**
 * The dashboard's cookies: `__Host-` prefixed and `Secure` (bound to this origin, never set by a sibling
 * domain) except in plain-HTTP local development, where a browser would refuse them; always `HttpOnly`
 * and `SameSite=Lax`.
 */
export class Cookies {
  readonly signIn: string;
  readonly visitor: string;
  readonly csrf: string;
  readonly operator: string;

  constructor(readonly secure: boolean) {
    const prefix = secure ? '__Host-' : '';
    this.signIn = `${prefix}idv_dash`;
    this.operator = `${prefix}idv_op`;
    this.visitor = `${prefix}idv_visit`;
    this.csrf = `${prefix}idv_csrf`;
  }

  set(res: Response, name: string, value: string, maxAgeSeconds?: number): void {
    res.append(
      'Set-Cookie',
      serialize(name, value, {
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure: this.secure,
        ...(maxAgeSeconds !== undefined ? { maxAge: maxAgeSeconds } : {}),
      }),
    );
  }

  clear(res: Response, name: string): void {
    this.set(res, name, '', 0);
  }
}
