import { baseEnvSchema, brokerEnvShape, databaseEnvShape, env, loadConfig } from '@idv/kit';
import { z } from 'zod';

export const configSchema = baseEnvSchema
  .extend({
    PORT: env.port(8084),
    ...databaseEnvShape,
    ...brokerEnvShape,
    /** Local development and tests only: allows http:// and loopback/private targets (docs/design.md). */
    WEBHOOKS_ALLOW_LOCAL_TARGETS: env.boolean(false),
    /** Attempts in flight at once in this replica. */
    WEBHOOKS_CONCURRENCY: z.coerce.number().int().min(1).max(1024).default(64),
    /** Attempts in flight at once to one endpoint in this replica, so a hanging endpoint cannot take every slot. */
    WEBHOOKS_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(1024).default(16),
    /**
     * Sends per second to the endpoint of one retry of failed deliveries (the dashboard's "retry failed
     * deliveries"), so a receiver back from an outage is not flooded.
     */
    WEBHOOKS_RETRY_PER_SECOND: z.coerce.number().positive().max(1000).default(10),
    /** Safety-net poll of the schedule when no NOTIFY arrives. */
    WEBHOOKS_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
    /**
     * 32 bytes, base64, encrypting endpoint signing secrets at rest (AES-256-GCM). Required in
     * production; elsewhere derived from INTERNAL_TOKEN when absent.
     */
    WEBHOOKS_SECRET_KEY: z
      .string()
      .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes encoded in base64')
      .optional(),
    /** The flow-runner's internal address: it builds the evidence links an attempt carries. */
    FLOW_URL: env.url().default('http://127.0.0.1:8083'),
    /** Timeout of the call for evidence links (an attempt waits on it before it is sent). */
    EVIDENCE_LINKS_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
    /**
     * An event's `result.document` is removed this many days after the event (the flow-runner's and the
     * sessions service's knob of the same name remove the captures and the session's copy): set all alike.
     */
    ARTEFACT_RETENTION_DAYS: z.coerce.number().positive().default(30),
    /** How often the retention sweep runs. */
    RETENTION_SWEEP_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(100)
      .default(10 * 60_000),
    /** The API, the fan-out and the dispatcher share the work: a larger pool than the other services'. */
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(20),
  })
  .superRefine((config, ctx) => {
    if (config.NODE_ENV === 'production' && !config.WEBHOOKS_SECRET_KEY) {
      ctx.addIssue({ code: 'custom', path: ['WEBHOOKS_SECRET_KEY'], message: 'is required in production' });
    }
    if (config.NODE_ENV === 'production' && config.WEBHOOKS_ALLOW_LOCAL_TARGETS) {
      ctx.addIssue({ code: 'custom', path: ['WEBHOOKS_ALLOW_LOCAL_TARGETS'], message: 'must be false in production (SSRF)' });
    }
  });
export type Config = z.infer<typeof configSchema>;

export const readConfig = (source: NodeJS.ProcessEnv = process.env): Config => loadConfig(configSchema, source);
