import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** One AES-256-GCM sealing: which key, the nonce, the tag and the ciphertext. */
export interface Sealed {
  keyId: string;
  iv: Buffer;
  tag: Buffer;
  ciphertext: Buffer;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * Encryption at rest with AES-256-GCM under keys named by id. New data is sealed with the active key;
 * data sealed under any key still in the ring opens, so keys rotate by adding a new active key and
 * dropping the old one once nothing sealed under it is kept. Associated data binds a sealing to what
 * it belongs to (a row's id), so a ciphertext copied onto another row does not open.
 */
export class Keyring {
  private readonly keys: ReadonlyMap<string, Buffer>;

  constructor(
    keys: Record<string, Buffer>,
    readonly activeKeyId: string,
  ) {
    for (const [id, key] of Object.entries(keys)) {
      if (!KEY_ID.test(id)) throw new Error(`key id ${JSON.stringify(id)} must be 1–32 letters, digits, _ or -`);
      if (key.length !== 32) throw new Error(`key ${id} must be 32 bytes`);
    }
    if (!keys[activeKeyId]) throw new Error(`the active key ${activeKeyId} is not in the ring`);
    this.keys = new Map(Object.entries(keys));
  }

  /** Parses `id:base64key,id2:base64key` (the environment's form). */
  static parse(spec: string, activeKeyId?: string): Keyring {
    const keys: Record<string, Buffer> = {};
    let first: string | undefined;
    for (const entry of spec
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean)) {
      const separator = entry.indexOf(':');
      if (separator <= 0) throw new Error('each key is written id:base64');
      const id = entry.slice(0, separator);
      keys[id] = Buffer.from(entry.slice(separator + 1), 'base64');
      first ??= id;
    }
    if (!first) throw new Error('the key ring is empty');
    return new Keyring(keys, activeKeyId ?? first);
  }

  seal(plain: Buffer, associatedData: string): Sealed {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.activeKeyId)!, iv);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plain), cipher.final()]);
    return { keyId: this.activeKeyId, iv, tag: cipher.getAuthTag(), ciphertext };
  }

  /** Throws when the key is unknown or the data or its associated data were changed. */
  open(sealed: Sealed, associatedData: string): Buffer {
    const key = this.keys.get(sealed.keyId);
    if (!key) throw new Error(`no key ${sealed.keyId} in the ring`);
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.iv);
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(sealed.tag);
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]);
  }

  /** A string sealing as one text value: `<keyId>.<iv>.<tag>.<ciphertext>` (base64url). */
  sealText(plain: string, associatedData = ''): string {
    const { keyId, iv, tag, ciphertext } = this.seal(Buffer.from(plain, 'utf8'), associatedData);
    return [keyId, iv, tag, ciphertext].map((part) => (Buffer.isBuffer(part) ? part.toString('base64url') : part)).join('.');
  }

  openText(text: string, associatedData = ''): string {
    const [keyId, iv, tag, data] = text.split('.');
    if (!keyId || !iv || !tag || data === undefined) throw new Error('not a sealed text');
    const sealed = {
      keyId,
      iv: Buffer.from(iv, 'base64url'),
      tag: Buffer.from(tag, 'base64url'),
      ciphertext: Buffer.from(data, 'base64url'),
    };
    return this.open(sealed, associatedData).toString('utf8');
  }
}
