import { baseEnvSchema, loadConfig } from '@idv/kit';
import type { z } from 'zod';

// This service is built by a later issue; its configuration grows with it.
export const configSchema = baseEnvSchema;
export type Config = z.infer<typeof configSchema>;

export const readConfig = (source: NodeJS.ProcessEnv = process.env): Config => loadConfig(configSchema, source);
