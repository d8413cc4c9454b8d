import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
/** Endpoints whose opened secret is kept: more than one replica's endpoints in a busy minute. */
const OPENED_KEPT = 4096;

/**
 * Encrypts endpoint signing secrets at rest with AES-256-GCM. The key lives outside the database
 * (WEBHOOKS_SECRET_KEY), so a dump of the webhooks schema alone cannot forge signatures.
 * Stored form: `v1.<iv>.<tag>.<ciphertext>` (base64url).
 */
export class SecretBox {
  private readonly key: Buffer;
  /**
   * Opened secrets by their sealed form: every delivery signs with its endpoint's secret, and opening it
   * (AES-GCM with a fresh decipher) was ≈ 6 % of a delivery's CPU. A sealed form that differs by one byte
   * is another key here and is opened (and refused) on its own.
   */
  private readonly opened = new Map<string, string>();

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
    const kept = this.opened.get(sealed);
    if (kept !== undefined) return kept;
    const plain = this.decrypt(sealed);
    // Oldest first out: a rotated secret's old sealed form stops being asked for and leaves.
    if (this.opened.size >= OPENED_KEPT) this.opened.delete(this.opened.keys().next().value!);
    this.opened.set(sealed, plain);
    return plain;
  }

  private decrypt(sealed: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || !data) throw new Error('unknown sealed secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}
