import { randomBytes } from 'node:crypto';
import { Keyring } from '../src/keyring';

describe('encryption at rest under named keys', () => {
  const k1 = randomBytes(32);
  const k2 = randomBytes(32);

  test('when data is sealed, then it opens with the same associated data and never with another', () => {
    const ring = new Keyring({ k1 }, 'k1');
    const sealed = ring.seal(Buffer.from('a photo'), 'art_1');

    expect(sealed.keyId).toBe('k1');
    expect(sealed.ciphertext.includes(Buffer.from('a photo'))).toBe(false);
    expect(ring.open(sealed, 'art_1').toString()).toBe('a photo');
    expect(() => ring.open(sealed, 'art_2')).toThrow();
  });

  test('when a key is rotated, then old data opens with the old key and new data is sealed with the new one', () => {
    const before = new Keyring({ k1 }, 'k1').seal(Buffer.from('old'), 'x');
    const rotated = Keyring.parse(`k2:${k2.toString('base64')},k1:${k1.toString('base64')}`);

    expect(rotated.activeKeyId).toBe('k2');
    expect(rotated.open(before, 'x').toString()).toBe('old');
    expect(rotated.seal(Buffer.from('new'), 'x').keyId).toBe('k2');
    expect(() => new Keyring({ k2 }, 'k2').open(before, 'x')).toThrow(/no key k1/);
  });

  test('when a sealed byte is changed, then opening fails', () => {
    const ring = new Keyring({ k1 }, 'k1');
    const sealed = ring.seal(Buffer.from('a photo'), 'art_1');
    sealed.ciphertext[0] = sealed.ciphertext[0]! ^ 1;
    expect(() => ring.open(sealed, 'art_1')).toThrow();
  });

  test('when keys are malformed, then the ring refuses them at start', () => {
    expect(() => new Keyring({ k1: randomBytes(16) }, 'k1')).toThrow(/32 bytes/);
    expect(() => new Keyring({ k1 }, 'k9')).toThrow(/active key/);
    expect(() => Keyring.parse('')).toThrow(/empty/);
    expect(() => Keyring.parse('nocolon')).toThrow(/id:base64/);
  });
});
