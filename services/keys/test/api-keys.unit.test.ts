import { createHash } from 'node:crypto';
import { generateSecret, hashSecret, modeOfSecret, normalizeScopes, randomBase62 } from '../src/domain/api-keys';

describe('API key secrets', () => {
  it('when a secret is generated, then it has the mode prefix and 43 base62 characters (≥ 256 bits)', () => {
    const secret = generateSecret('live');
    expect(secret).toMatch(/^sk_live_[0-9A-Za-z]{43}$/);
    expect(generateSecret('test')).toMatch(/^sk_test_[0-9A-Za-z]{43}$/);
  });

  it('when many secrets are generated, then none repeats and every base62 character appears', () => {
    const secrets = new Set(Array.from({ length: 2000 }, () => generateSecret('test')));
    expect(secrets.size).toBe(2000);
    const alphabet = new Set(randomBase62(20_000));
    expect(alphabet.size).toBe(62);
  });

  it('when a secret is hashed, then it is its SHA-256 hex', () => {
    expect(hashSecret('sk_test_x')).toBe(createHash('sha256').update('sk_test_x').digest('hex'));
  });

  it('when the mode is read from a secret, then the prefix decides', () => {
    expect(modeOfSecret('sk_live_x')).toBe('live');
    expect(modeOfSecret('sk_test_x')).toBe('test');
    expect(modeOfSecret('pk_live_x')).toBeNull();
  });

  it('when scopes are omitted, then all five are granted; given scopes keep canonical order', () => {
    expect(normalizeScopes(undefined)).toEqual([
      'sessions:read',
      'sessions:write',
      'webhooks:read',
      'webhooks:write',
      'usage:read',
    ]);
    expect(normalizeScopes(['usage:read', 'sessions:read'])).toEqual(['sessions:read', 'usage:read']);
  });
});
