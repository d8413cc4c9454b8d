import { TimestampSchema } from './common';
import { idSchema } from './ids';
import { ScopeSchema } from './scopes';
import { ModeSchema } from './sessions';
import { z } from './zod';

export const ACCOUNT_STATUSES = ['pending', 'active', 'suspended'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

export const AccountSchema = z.object({
  id: idSchema('account'),
  object: z.literal('account'),
  name: z.string(),
  email: z.string(),
  status: z.enum(ACCOUNT_STATUSES),
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
});
export type Account = z.infer<typeof AccountSchema>;

/**
 * An account and what its keys say about going live, in one answer (the dashboard's home page): how
 * many of its live keys work now.
 */
export const AccountReadinessSchema = z.object({ account: AccountSchema, live_keys: z.number().int().min(0) });
export type AccountReadiness = z.infer<typeof AccountReadinessSchema>;

export const CreateAccountBodySchema = z.strictObject({
  name: z.string().min(1).max(200),
  email: z.string().email().max(320),
});

export const ApiKeySchema = z.object({
  id: idSchema('apiKey'),
  object: z.literal('api_key'),
  account_id: idSchema('account'),
  name: z.string(),
  mode: ModeSchema,
  scopes: z.array(ScopeSchema),
  created_at: TimestampSchema,
  last_used_at: TimestampSchema.nullable(),
  revoked_at: TimestampSchema.nullable(),
  /** A revocation scheduled by a roll: the key works until then. */
  revokes_at: TimestampSchema.nullable(),
});
export type ApiKey = z.infer<typeof ApiKeySchema>;

/** A roll's delays: now, one hour, one day, seven days (in seconds). */
export const ROLL_DELAYS_SECONDS = [0, 3600, 86_400, 604_800] as const;
export const RollApiKeyBodySchema = z.strictObject({
  delay_seconds: z.literal(ROLL_DELAYS_SECONDS),
});

/** Spec "API key": creation takes mode, name and optional scopes (all five when omitted). */
export const CreateApiKeyBodySchema = z.strictObject({
  account_id: idSchema('account'),
  mode: ModeSchema,
  name: z.string().min(1).max(200),
  scopes: z
    .array(ScopeSchema)
    .min(1)
    .refine((s) => new Set(s).size === s.length, 'must not repeat a scope')
    .optional(),
});

export const ResolveKeyBodySchema = z.strictObject({ secret_hash: z.string().regex(/^[0-9a-f]{64}$/) });

/** What the keys service tells the gateway about a presented secret. */
export const ResolvedKeySchema = z.object({
  key_id: idSchema('apiKey'),
  account_id: idSchema('account'),
  account_status: z.enum(ACCOUNT_STATUSES),
  mode: ModeSchema,
  scopes: z.array(ScopeSchema),
  revoked: z.boolean(),
  /** A scheduled revocation (a roll with a delay): the gateway refuses the key from then on, cached or not. */
  revokes_at: TimestampSchema.nullable(),
  secret_hash: z.string(),
});
export type ResolvedKey = z.infer<typeof ResolvedKeySchema>;
