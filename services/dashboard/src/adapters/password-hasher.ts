import { hash, verify } from '@node-rs/argon2';

/**
 * Passwords hashed with argon2id (@node-rs/argon2's defaults: 19 MiB, 2 passes, 1 lane, OWASP's minimum),
 * on libuv's thread pool so the event loop keeps serving.
 */
export class Argon2PasswordHasher {
  /** A hash of no one's password, verified when the e-mail is unknown so both answers take as long. */
  private decoy: Promise<string> | null = null;

  hash(password: string): Promise<string> {
    return hash(password);
  }

  async verify(passwordHash: string, password: string): Promise<boolean> {
    try {
      return await verify(passwordHash, password);
    } catch {
      return false;
    }
  }

  async burn(password: string): Promise<void> {
    this.decoy ??= hash('no-one-has-this-password');
    await this.verify(await this.decoy, password);
  }
}

export type PasswordHasher = Pick<Argon2PasswordHasher, 'hash' | 'verify' | 'burn'>;
