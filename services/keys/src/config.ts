import { baseEnvSchema, env, loadConfig } from '@idv/kit';
import { z } from 'zod';

export const configSchema = baseEnvSchema.extend({
  PORT: env.port(8081),
  DATABASE_URL: env.url(),
  AMQP_URL: env.url(),
  BROKER_NAMESPACE: z
    .string()
    .regex(/^[a-z0-9_.-]+$/)
    .default('idv'),
});
export type Config = z.infer<typeof configSchema>;

export const readConfig = (source: NodeJS.ProcessEnv = process.env): Config => loadConfig(configSchema, source);
