import { fastUlid, pooledRandomBase64url, pooledRandomByte } from '../src';

describe('the pooled random source (issue 43)', () => {
  test('when nonces are drawn past several refills of the pool, then each is 12 bytes of base64url and none repeats', () => {
    const nonces = Array.from({ length: 2_000 }, () => pooledRandomBase64url(12)); // ≈ 6 pools of 4 KiB
    expect(nonces.every((n) => /^[A-Za-z0-9_-]{16}$/.test(n))).toBe(true);
    expect(Buffer.from(nonces[0]!, 'base64url')).toHaveLength(12);
    expect(new Set(nonces).size).toBe(nonces.length);
  });

  test('when bytes are drawn one at a time across refills, then they spread over 0–255 as random bytes do', () => {
    const counts = new Array<number>(256).fill(0);
    const draws = 256 * 200;
    for (let i = 0; i < draws; i++) counts[pooledRandomByte()]! += 1;
    // 200 expected per value; a chi-square over 255 degrees of freedom beyond 400 would be a broken source.
    const chiSquare = counts.reduce((sum, c) => sum + (c - 200) ** 2 / 200, 0);
    expect(chiSquare).toBeLessThan(400);
    expect(new Set(Array.from({ length: 1_000 }, fastUlid)).size).toBe(1_000);
  });

  test('when a draw asks for nothing or for more than the pool, then it is refused', () => {
    expect(() => pooledRandomBase64url(0)).toThrow(RangeError);
    expect(() => pooledRandomBase64url(4097)).toThrow(RangeError);
    expect(pooledRandomBase64url(4096)).toHaveLength(5462);
  });
});
