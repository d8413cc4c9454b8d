import type { Account, ApiKey, ResolvedKey } from '@idv/contracts';
import type { AccountRecord } from '../domain/accounts';
import { isRevoked, type ApiKeyRecord, type ResolvedKeyRecord } from '../domain/api-keys';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toAccount(record: AccountRecord): Account {
  return {
    id: record.id,
    object: 'account',
    name: record.name,
    email: record.email,
    status: record.status,
    created_at: record.createdAt.toISOString(),
    updated_at: record.updatedAt.toISOString(),
  };
}

/** A key's public shape: never its secret, nor the secret's hash. */
export function toApiKey(record: ApiKeyRecord): ApiKey {
  return {
    id: record.id,
    object: 'api_key',
    account_id: record.accountId,
    name: record.name,
    mode: record.mode,
    scopes: record.scopes,
    created_at: record.createdAt.toISOString(),
    last_used_at: iso(record.lastUsedAt),
    revoked_at: iso(record.revokedAt),
    revokes_at: iso(record.revokesAt),
  };
}

/** What the gateway is told about a presented secret. */
export function toResolvedKey({ key, accountStatus }: ResolvedKeyRecord): ResolvedKey {
  return {
    key_id: key.id,
    account_id: key.accountId,
    account_status: accountStatus,
    mode: key.mode,
    scopes: key.scopes,
    revoked: isRevoked(key),
    revokes_at: iso(key.revokesAt),
    secret_hash: key.secretHash,
  };
}
