import type { InternalClient } from '@idv/contracts';
import type { AddressThrottle, Keyring, Logger, Pool } from '@idv/kit';
import type { Mailer } from '../adapters/mailer';
import type { PasswordHasher } from '../adapters/password-hasher';

/** What the dashboard's use cases run on. */
export interface DashboardPorts {
  pool: Pool;
  /** The other services' internal routes (accounts at keys; projects and configurations at sessions); `stream` for files (the usage CSV). */
  platform: Pick<InternalClient, 'call' | 'stream'>;
  mailer: Mailer;
  hasher: PasswordHasher;
  throttle: Pick<AddressThrottle, 'take' | 'peek'>;
  commonPasswords: ReadonlySet<string>;
  logger: Logger;
  /** The dashboard's public origin, for the links it e-mails. */
  baseUrl: string;
  signIn: { idleSeconds: number; maxSeconds: number; operatorIdleSeconds: number; operatorMaxSeconds: number };
  /** Seals what must be read back (operators' TOTP secrets). */
  keyring: Keyring;
}

/** The per-address and per-e-mail throttles' kinds (limits in config.ts). */
export const THROTTLES = {
  signUp: 'dashboard_sign_up',
  signIn: 'dashboard_sign_in',
  failedPassword: 'dashboard_failed_password',
  /** Per e-mail: reset and sign-in links asked for (an inbox is not flooded whoever asks). */
  emailLinks: 'dashboard_email_links',
} as const;
