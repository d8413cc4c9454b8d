import { domainEvents, newId, type AccountId, type ApiKeyId, type Mode, type Scope } from '@idv/contracts';
import { AppError, enqueueEvent, notFound, withTransaction, type Pool } from '@idv/kit';
import * as accounts from '../adapters/accounts.repository';
import type { AccountRecord } from '../domain/accounts';
import * as keys from '../adapters/api-keys.repository';
import {
  generateSecret,
  hashSecret,
  isRevoked,
  normalizeScopes,
  type ApiKeyRecord,
  type ResolvedKeyRecord,
} from '../domain/api-keys';

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

/**
 * A roll: a replacement with the same account, name, mode and scopes, and the old key revoked now (with its
 * eviction event) or at `now + delaySeconds` (the gateway refuses it from then, cached or not). The old
 * key's row is locked, so two rolls of one key at once make one replacement.
 */
export function rollApiKey(
  pool: Pool,
  keyId: ApiKeyId,
  delaySeconds: number,
): Promise<{ replacement: ApiKeyRecord; secret: string; rolled: ApiKeyRecord }> {
  return withTransaction(pool, async (tx) => {
    const old = await keys.findKeyForUpdate(tx, keyId);
    if (!old) throw notFound('API key');
    if (isRevoked(old) || old.revokesAt) throw new AppError('conflict', 'This key is revoked or already being rolled.');
    const secret = generateSecret(old.mode);
    const replacement = await keys.insertKey(tx, old.accountId, {
      id: newId('apiKey'),
      name: old.name,
      mode: old.mode,
      scopes: old.scopes,
      secretHash: hashSecret(secret),
    });
    let rolled: ApiKeyRecord | null;
    if (delaySeconds === 0) {
      rolled = await keys.revokeKey(tx, old.id);
      await enqueueEvent(
        tx,
        domainEvents.apiKeyRevoked({ key_id: old.id, account_id: old.accountId, secret_hash: old.secretHash }),
      );
    } else {
      rolled = await keys.scheduleRevocation(tx, old.id, new Date(Date.now() + delaySeconds * 1000));
    }
    return { replacement, secret, rolled: rolled ?? old };
  });
}

export async function listApiKeys(pool: Pool, accountId: AccountId): Promise<ApiKeyRecord[]> {
  if (!(await accounts.findAccount(pool, accountId))) throw notFound('account');
  return keys.listKeys(pool, accountId);
}

/** An account and how many of its live keys work (the dashboard's go-live checklist): a query each, at once. */
export async function accountReadiness(pool: Pool, accountId: AccountId): Promise<{ account: AccountRecord; liveKeys: number }> {
  const [account, liveKeys] = await Promise.all([accounts.findAccount(pool, accountId), keys.countLiveKeys(pool, accountId)]);
  if (!account) throw notFound('account');
  return { account, liveKeys };
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
  if (!isRevoked(resolved.key)) void keys.touchKey(pool, resolved.key.id).catch(() => undefined);
  return resolved;
}
