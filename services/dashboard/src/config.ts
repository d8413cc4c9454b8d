import { hkdfSync } from 'node:crypto';
import {
  Keyring,
  baseEnvSchema,
  brokerEnvShape,
  databaseEnvShape,
  env,
  loadConfig,
  smtpEnvShape,
  trustedProxiesEnvShape,
} from '@idv/kit';
import { z } from 'zod';

const keyringSpec = z.string().refine((spec) => {
  try {
    Keyring.parse(spec);
    return true;
  } catch {
    return false;
  }
}, 'must be id:base64key[,id:base64key…] with 32-byte keys');

export const configSchema = baseEnvSchema
  .extend({
    PORT: env.port(8085),
    ...databaseEnvShape,
    /** The broker the owners' notices come from (the balance's and the webhook circuits' events). */
    ...brokerEnvShape,
    REDIS_URL: env.url(),
    KEYS_URL: env.url().default('http://127.0.0.1:8081'),
    SESSIONS_URL: env.url().default('http://127.0.0.1:8082'),
    WEBHOOKS_URL: env.url().default('http://127.0.0.1:8084'),
    /** The flow-runner's internal address: a session's timeline. */
    FLOW_URL: env.url().default('http://127.0.0.1:8083'),
    /** The dashboard's own public origin: the links in its e-mails start with it. */
    DASHBOARD_BASE_URL: env.url().default('http://localhost:8085'),
    /**
     * The key of the CSRF tokens' HMAC (at least 32 characters). Required in production; in development
     * and tests derived from INTERNAL_TOKEN.
     */
    DASHBOARD_SECRET: z.string().min(32).optional(),
    /**
     * Cookies `__Host-` prefixed and `Secure`: on everywhere but plain-HTTP local development, where a
     * browser would drop them.
     */
    SECURE_COOKIES: env.boolean(true),
    /** A signed-in session ends after this many hours without a request, and at most after SIGN_IN_MAX_HOURS. */
    SIGN_IN_IDLE_HOURS: z.coerce.number().positive().default(12),
    SIGN_IN_MAX_HOURS: z.coerce
      .number()
      .positive()
      .default(7 * 24),
    /** An operator's sign-in is shorter: 30 minutes idle, 12 hours at most. */
    OPERATOR_SIGN_IN_IDLE_MINUTES: z.coerce.number().positive().default(30),
    OPERATOR_SIGN_IN_MAX_HOURS: z.coerce.number().positive().default(12),
    /**
     * Keys sealing what the dashboard must read back (operators' TOTP secrets), `id:base64key,…` as
     * ARTEFACT_KEYS; the first seals, the others still open. Required in production; derived from
     * INTERNAL_TOKEN elsewhere.
     */
    DASHBOARD_KEYS: keyringSpec.optional(),
    /** Per client address: sign-ups and sign-in attempts before "too many attempts" (429). */
    THROTTLE_SIGN_UPS_PER_MINUTE: z.coerce.number().positive().default(2),
    THROTTLE_SIGN_UPS_BURST: z.coerce.number().int().positive().default(10),
    THROTTLE_SIGN_INS_PER_MINUTE: z.coerce.number().positive().default(10),
    THROTTLE_SIGN_INS_BURST: z.coerce.number().int().positive().default(30),
    /** Per e-mail address: failed passwords before sign-in by password waits (the e-mailed link still works). */
    THROTTLE_FAILED_PASSWORDS_PER_HOUR: z.coerce.number().positive().default(6),
    THROTTLE_FAILED_PASSWORDS_BURST: z.coerce.number().int().positive().default(10),
    ...smtpEnvShape,
    ...trustedProxiesEnvShape,
    /** Timeout of every outbound call (keys and sessions services, SMTP). */
    OUTBOUND_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  })
  .superRefine((config, ctx) => {
    if (config.NODE_ENV === 'production' && !config.DASHBOARD_SECRET) {
      ctx.addIssue({ code: 'custom', path: ['DASHBOARD_SECRET'], message: 'is required in production' });
    }
    if (config.NODE_ENV === 'production' && !config.DASHBOARD_KEYS) {
      ctx.addIssue({ code: 'custom', path: ['DASHBOARD_KEYS'], message: 'is required in production' });
    }
  });
export type Config = z.infer<typeof configSchema>;

export const readConfig = (source: NodeJS.ProcessEnv = process.env): Config => loadConfig(configSchema, source);

/** The CSRF key: DASHBOARD_SECRET, or (development and tests only) derived from INTERNAL_TOKEN. */
export function dashboardSecret(config: Pick<Config, 'DASHBOARD_SECRET' | 'INTERNAL_TOKEN'>): string {
  if (config.DASHBOARD_SECRET) return config.DASHBOARD_SECRET;
  return Buffer.from(hkdfSync('sha256', config.INTERNAL_TOKEN, 'idv-dashboard', 'csrf', 32)).toString('base64url');
}

/** The key ring: DASHBOARD_KEYS, or (development and tests only) one key derived from INTERNAL_TOKEN. */
export function dashboardKeyring(config: Pick<Config, 'DASHBOARD_KEYS' | 'INTERNAL_TOKEN'>): Keyring {
  if (config.DASHBOARD_KEYS) return Keyring.parse(config.DASHBOARD_KEYS);
  return new Keyring({ dev: Buffer.from(hkdfSync('sha256', config.INTERNAL_TOKEN, 'idv-dashboard', 'sealing', 32)) }, 'dev');
}
