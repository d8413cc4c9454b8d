import { domainEvents, newId, type AccountId, type ApiKeyId, type Mode, type Scope } from '@idv/contracts';
import { AppError, enqueueEvent, notFound, withTransaction, type Pool } from '@idv/kit';
import * as accounts from '../adapters/accounts.repository';
import * as keys from '../adapters/api-keys.repository';
import { generateSecret, hashSecret, normalizeScopes, type ApiKeyRecord, type ResolvedKeyRecord } from '../domain/api-keys';

/** A new key and its secret: the only time the secret exists outside the caller's hands. */
export function createApiKey(
  pool: Pool,
  input: { accountId: AccountId; name: string; mode: Mode; scopes?: readonly Scope[] },
): Promise<{ key: ApiKeyRecord; secret: string }> {
  return withTransaction(pool, async (tx) => {
    if (!(await accounts.findAccount(tx, input.accountId))) {
      throw new AppError('validation_failed', 'account_id does not exist.', {
        errors: [{ path: 'account_id', message: 'no such account' }],
      });
    }
    const secret = generateSecret(input.mode);
    const key = await keys.insertKey(tx, input.accountId, {
      id: newId('apiKey'),
      name: input.name,
      mode: input.mode,
      scopes: normalizeScopes(input.scopes),
      secretHash: hashSecret(secret),
    });
    return { key, secret };
  });
}

export async function listApiKeys(pool: Pool, accountId: AccountId): Promise<ApiKeyRecord[]> {
  if (!(await accounts.findAccount(pool, accountId))) throw notFound('account');
  return keys.listKeys(pool, accountId);
}

/**
 * Revocation and its `api_key.revoked` event commit together; the event carries the secret's hash so
 * every gateway replica evicts the key from its cache.
 */
export function revokeApiKey(pool: Pool, keyId: ApiKeyId): Promise<ApiKeyRecord> {
  return withTransaction(pool, async (tx) => {
    const revoked = await keys.revokeKey(tx, keyId);
    if (!revoked) throw notFound('API key');
    await enqueueEvent(
      tx,
      domainEvents.apiKeyRevoked({ key_id: revoked.id, account_id: revoked.accountId, secret_hash: revoked.secretHash }),
    );
    return revoked;
  });
}

/** The key a presented secret's hash names; its last use is noted off the request's path. */
export async function resolveApiKey(pool: Pool, secretHash: string): Promise<ResolvedKeyRecord> {
  const resolved = await keys.resolveKey(pool, secretHash);
  if (!resolved) throw notFound('API key');
  if (!resolved.key.revokedAt) void keys.touchKey(pool, resolved.key.id).catch(() => undefined);
  return resolved;
}
