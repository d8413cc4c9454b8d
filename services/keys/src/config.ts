import { baseEnvSchema, brokerEnvShape, databaseEnvShape, env, loadConfig } from '@idv/kit';
import { type z } from 'zod';

export const configSchema = baseEnvSchema.extend({
  PORT: env.port(8081),
  ...databaseEnvShape,
  ...brokerEnvShape,
});
export type Config = z.infer<typeof configSchema>;

export const readConfig = (source: NodeJS.ProcessEnv = process.env): Config => loadConfig(configSchema, source);
