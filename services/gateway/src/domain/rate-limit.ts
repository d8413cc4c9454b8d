export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds until one token is available, when refused. */
  retryAfterSeconds: number;
}

/** Turns the bucket state returned by Redis into headers-ready numbers. */
export function decide(allowed: boolean, tokens: number, perSecond: number, burst: number): RateDecision {
  return {
    allowed,
    limit: burst,
    remaining: Math.max(0, Math.floor(tokens)),
    resetSeconds: Math.max(0, Math.ceil((burst - tokens) / perSecond)),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / perSecond)),
  };
}

export function rateLimitHeaders(decision: RateDecision, perSecond: number): Record<string, string> {
  return {
    'RateLimit-Limit': String(decision.limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': String(decision.resetSeconds),
    'RateLimit-Policy': `${perSecond};w=1;burst=${decision.limit}`,
  };
}
