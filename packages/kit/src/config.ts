import { z } from 'zod';

export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid configuration:\n${issues.map((i) => `  - ${i}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const booleanFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** Variables every service reads; each service extends this with its own. */
export const baseEnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  HOST: z.string().default('0.0.0.0'),
  INTERNAL_TOKEN: z.string().min(16, 'must be at least 16 characters (shared secret between services)'),
  TIME_SCALE: z.coerce.number().positive().max(1000).default(1),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().positive().default(25_000),
  // The HTTP server's timeouts (lifecycle.ts ServerTimeouts). An idle keep-alive connection is closed after
  // HTTP_KEEP_ALIVE_TIMEOUT_MS: above a load balancer's idle timeout (AWS ALB and GCP: 60 s, nginx upstream
  // keep-alive: 60 s), so the balancer closes first and never reuses a connection the server is closing.
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().positive().default(65_000),
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().positive().default(20_000),
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(300_000),
});

/** The database settings of every service with a schema of its own. */
export const databaseEnvShape = {
  DATABASE_URL: z.string().url(),
  /** PostgreSQL connections of each pool of one replica. */
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  /**
   * Migrate the schema at start (local runs, compose, tests). Off where a release's migrations run once
   * beforehand (the Kubernetes migrate Job): the service then only checks that the schema is the one it
   * was built for.
   */
  MIGRATE_ON_START: booleanFromEnv.default(true),
};

/** The broker settings of every service that publishes or consumes domain events. */
export const brokerEnvShape = {
  AMQP_URL: z.string().url(),
  /** Prefix of exchanges and queues, so several stacks can share one broker. */
  BROKER_NAMESPACE: z
    .string()
    .regex(/^[a-z0-9_.-]+$/)
    .default('idv'),
};

/**
 * Proxies (load balancers, ingress) whose `X-Forwarded-For` is believed, as a comma-separated list of
 * addresses or CIDR ranges; empty: the socket's peer is the client.
 */
export const trustedProxiesEnvShape = {
  TRUSTED_PROXIES: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean),
    )
    .refine(
      (entries) => entries.every((entry) => /^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(entry)),
      'must be a comma-separated list of IP addresses or CIDR ranges',
    ),
};

export const env = {
  boolean: (fallback: boolean) => booleanFromEnv.default(fallback),
  url: () => z.string().url(),
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
};

/**
 * Parses the environment once. A bad or missing variable fails with a message naming it, so an
 * operator sees `DATABASE_URL: Invalid URL` instead of a stack trace later.
 */
export function loadConfig<S extends z.ZodType>(schema: S, source: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const parsed = schema.safeParse(source);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`));
  }
  return parsed.data;
}
