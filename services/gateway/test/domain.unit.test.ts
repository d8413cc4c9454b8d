import { createHash } from 'node:crypto';
import { authorizationCount, readPresentedKey } from '../src/domain/credentials';
import { decide, rateLimitHeaders } from '../src/domain/rate-limit';
import { RouteTable } from '@idv/contracts';

describe('route table', () => {
  const table = new RouteTable();

  it('when a path with an id matches a route, then that route is found', () => {
    const match = table.match('POST', '/v1/verification-sessions/vs_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6/cancel');
    expect(match).toMatchObject({ kind: 'found', route: { operationId: 'cancelVerificationSession', scope: 'sessions:write' } });
  });

  it('when the QR path is asked with its extension, then the public route is found', () => {
    expect(table.match('GET', '/v1/qr/lt_abc.svg')).toMatchObject({
      kind: 'found',
      route: { scope: null, operationId: 'getQrSvg' },
    });
    expect(table.match('GET', '/v1/qr/lt_abc.png')).toMatchObject({ kind: 'found', route: { operationId: 'getQrPng' } });
  });

  it('when the method is wrong, then the allowed methods are listed; unknown paths are not found', () => {
    expect(table.match('DELETE', '/v1/verification-sessions')).toEqual({
      kind: 'method_not_allowed',
      allowed: ['POST', 'GET'],
      path: '/v1/verification-sessions',
    });
    expect(table.match('GET', '/v1/nothing-here')).toEqual({ kind: 'not_found' });
    expect(table.match('GET', '/v1/verification-sessions/vs_1/extra')).toEqual({ kind: 'not_found' });
  });
});

describe('presented key', () => {
  it('when the header is a bearer secret key, then its mode comes from the prefix and only its hash is kept', () => {
    const secret = 'sk_live_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG';
    expect(readPresentedKey(`Bearer ${secret}`)).toEqual({
      mode: 'live',
      secretHash: createHash('sha256').update(secret).digest('hex'),
    });
    expect(readPresentedKey('Bearer sk_test_x')?.mode).toBe('test');
  });

  it.each(['bearer sk_test_x', 'BEARER sk_test_x', 'Bearer   sk_test_x'])(
    'when the header is %p, then the key is read (RFC 7235: the scheme is case-insensitive)',
    (header) => {
      expect(readPresentedKey(header)?.mode).toBe('test');
    },
  );

  it('when two Authorization headers arrive, then both are counted (node keeps only the first)', () => {
    expect(authorizationCount(['Host', 'x', 'Authorization', 'Bearer a', 'authorization', 'Bearer b'])).toBe(2);
    expect(authorizationCount(['Host', 'x', 'Authorization', 'Bearer a'])).toBe(1);
  });

  it.each([
    undefined,
    '',
    'Bearer',
    'Basic abc',
    'Bearersk_test_x',
    'Bearer pk_test_x',
    'Bearer sk_test_x y',
    `Bearer sk_test_${'a'.repeat(300)}`,
  ])('when the header is %p, then no key is presented', (header) => {
    expect(readPresentedKey(header)).toBeNull();
  });
});

describe('rate limit decision', () => {
  it('when tokens remain, then the request is allowed and headers describe the bucket', () => {
    const decision = decide(true, 39, 20, 40);
    expect(decision).toMatchObject({ allowed: true, limit: 40, remaining: 39, resetSeconds: 1, retryAfterSeconds: 0 });
    expect(rateLimitHeaders(decision, 20)).toEqual({
      'RateLimit-Policy': '20;w=1;burst=40',
      'RateLimit-Limit': '40',
      'RateLimit-Remaining': '39',
      'RateLimit-Reset': '1',
    });
  });

  it('when the bucket is empty, then Retry-After is at least one second', () => {
    expect(decide(false, 0.2, 20, 40)).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 1, resetSeconds: 2 });
  });
});
