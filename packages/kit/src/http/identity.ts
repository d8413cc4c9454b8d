import { createHmac, timingSafeEqual } from 'node:crypto';
import { INTERNAL_HEADERS, IdentitySchema, type Identity } from '@idv/contracts';
import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../errors';

function sign(payload: string, secret: string): string {
  return createHmac('sha256', secret).update(payload).digest('hex');
}

export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Headers the gateway adds so an upstream service can trust who is calling. */
export function identityHeaders(identity: Identity, secret: string): Record<string, string> {
  const context = Buffer.from(JSON.stringify(identity)).toString('base64url');
  return { [INTERNAL_HEADERS.context]: context, [INTERNAL_HEADERS.signature]: sign(context, secret) };
}

export function readIdentity(req: Request, secret: string): Identity {
  const context = req.header(INTERNAL_HEADERS.context);
  const signature = req.header(INTERNAL_HEADERS.signature);
  if (!context || !signature || !safeEqual(sign(context, secret), signature)) {
    throw new AppError('unauthorized', 'The authorization context is missing or invalid.');
  }
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(context, 'base64url').toString('utf8'));
  } catch {
    throw new AppError('unauthorized', 'The authorization context is malformed.');
  }
  const parsed = IdentitySchema.safeParse(decoded);
  if (!parsed.success) throw new AppError('unauthorized', 'The authorization context is malformed.');
  return parsed.data;
}

/** Middleware for routes the gateway proxies: rejects any request without a valid signed identity. */
export function requireIdentity(secret: string) {
  return (req: Request, res: Response, next: NextFunction) => {
    res.locals.identity = readIdentity(req, secret);
    next();
  };
}

export function identityOf(res: Response): Identity {
  const identity = res.locals.identity as Identity | undefined;
  if (!identity) throw new AppError('unauthorized', 'The authorization context is missing.');
  return identity;
}

/** Middleware for service-to-service routes (`/internal/*`): a shared token compared in constant time. */
export function requireInternalToken(token: string) {
  return (req: Request, _res: Response, next: NextFunction) => {
    const presented = req.header(INTERNAL_HEADERS.token);
    if (!presented || !safeEqual(presented, token)) {
      throw new AppError('unauthorized', 'This operation is internal.');
    }
    next();
  };
}
