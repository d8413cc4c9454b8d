import { baseEnvSchema, brokerEnvShape, env, loadConfig, trustedProxiesEnvShape } from '@idv/kit';
import { z } from 'zod';

const originList = z
  .string()
  .default('https://dashboard.idv.example')
  .transform((value) =>
    value
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
  );

export const configSchema = baseEnvSchema.extend({
  PORT: env.port(8080),
  KEYS_URL: env.url().default('http://127.0.0.1:8081'),
  SESSIONS_URL: env.url().default('http://127.0.0.1:8082'),
  WEBHOOKS_URL: env.url().default('http://127.0.0.1:8084'),
  REDIS_URL: env.url(),
  ...brokerEnvShape,
  PUBLIC_BASE_URL: env.url().default('http://localhost:8080'),
  /** The dashboard's origin(s), the only ones CORS allows (the local stack sets its localhost one). */
  CORS_ORIGINS: originList,
  RATE_LIMIT_PER_SECOND: z.coerce.number().positive().default(20),
  RATE_LIMIT_BURST: z.coerce.number().int().positive().default(40),
  KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).default(60_000),
  ...trustedProxiesEnvShape,
  /** Per client address: failed authentications (missing, unknown, revoked keys) before 429. */
  THROTTLE_AUTH_FAILURES_PER_SECOND: z.coerce.number().positive().default(5),
  THROTTLE_AUTH_FAILURES_BURST: z.coerce.number().int().positive().default(100),
  /** Per client address: QR image requests before 429. */
  THROTTLE_QR_PER_SECOND: z.coerce.number().positive().default(10),
  THROTTLE_QR_BURST: z.coerce.number().int().positive().default(200),
});
export type Config = z.infer<typeof configSchema>;

export const readConfig = (source: NodeJS.ProcessEnv = process.env): Config => loadConfig(configSchema, source);
