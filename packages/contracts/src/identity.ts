import { idPattern } from './ids';
import { ScopeSchema } from './scopes';
import { ModeSchema } from './sessions';
import { z } from './zod';

/**
 * The caller identity the gateway resolved from the API key, passed to upstream services in signed
 * internal headers. Upstream services accept it only with a valid signature (docs/design.md "Services and what each owns").
 */
export const IdentitySchema = z.strictObject({
  account_id: z.string().regex(idPattern('account')),
  key_id: z.string().regex(idPattern('apiKey')),
  mode: ModeSchema,
  scopes: z.array(ScopeSchema),
});
export type Identity = z.infer<typeof IdentitySchema>;

export const INTERNAL_HEADERS = {
  context: 'x-idv-context',
  signature: 'x-idv-context-signature',
  token: 'x-idv-internal-token',
  requestId: 'x-request-id',
} as const;
