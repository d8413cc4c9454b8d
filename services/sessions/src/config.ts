import { baseEnvSchema, brokerEnvShape, databaseEnvShape, env, loadConfig } from '@idv/kit';
import { z } from 'zod';

export const configSchema = baseEnvSchema.extend({
  PORT: env.port(8082),
  ...databaseEnvShape,
  ...brokerEnvShape,
  /** Public base of the API (the gateway): QR image URLs are built on it. */
  PUBLIC_BASE_URL: env.url().default('http://localhost:8080'),
  /** Base of the person's web flow (the flow-runner): session links are `${FLOW_BASE_URL}/l/${token}`. */
  FLOW_BASE_URL: env.url().default('http://localhost:8083'),
  /** The flow-runner's internal address: it builds the evidence links of a session when it is answered. */
  FLOW_URL: env.url().default('http://127.0.0.1:8083'),
  /** Timeout of the call for evidence links (a GET waits on it). */
  EVIDENCE_LINKS_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
  /**
   * `result.document` is removed this many days after the session completed (the flow-runner's knob of the
   * same name deletes the captures and what was read from them): set both services alike.
   */
  ARTEFACT_RETENTION_DAYS: z.coerce.number().positive().default(30),
  /** Timer sweeper poll period; by default min(1 s, 1 scaled minute), at least 20 ms. */
  SWEEP_INTERVAL_MS: z.coerce.number().int().min(5).optional(),
});
export type Config = z.infer<typeof configSchema>;

export const readConfig = (source: NodeJS.ProcessEnv = process.env): Config => loadConfig(configSchema, source);
