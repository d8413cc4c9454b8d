import { idSchema } from './ids';
import { ScopeSchema } from './scopes';
import { ModeSchema } from './sessions';
import { z } from './zod';

/**
 * The caller identity the gateway resolved from the API key, passed to upstream services in signed
 * internal headers. Upstream services accept it only with a valid signature (docs/design.md "Services and what each owns").
 */
export const IdentitySchema = z.strictObject({
  account_id: idSchema('account'),
  key_id: idSchema('apiKey'),
  mode: ModeSchema,
  scopes: z.array(ScopeSchema),
});
/** The identity as a service reads it: `account_id` an `AccountId`, `key_id` an `ApiKeyId`. */
export type Identity = z.output<typeof IdentitySchema>;

export const INTERNAL_HEADERS = {
  context: 'x-idv-context',
  signature: 'x-idv-context-signature',
  token: 'x-idv-internal-token',
  requestId: 'x-request-id',
} as const;
