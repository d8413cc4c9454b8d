import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';

/**
 * Encrypts endpoint signing secrets at rest with AES-256-GCM. The key lives outside the database
 * (WEBHOOKS_SECRET_KEY), so a dump of the webhooks schema alone cannot forge signatures.
 * Stored form: `v1.<iv>.<tag>.<ciphertext>` (base64url).
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('secret box key must be 32 bytes');
    this.key = key;
  }

  static fromConfig(base64Key: string | undefined, internalToken: string): SecretBox {
    if (base64Key) return new SecretBox(Buffer.from(base64Key, 'base64'));
    // Development and tests only (production requires WEBHOOKS_SECRET_KEY, see config.ts).
    return new SecretBox(Buffer.from(hkdfSync('sha256', internalToken, 'idv-webhooks', 'endpoint-secrets', 32)));
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const encrypted = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), encrypted.toString('base64url')].join(
      '.',
    );
  }

  open(sealed: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || !data) throw new Error('unknown sealed secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}
