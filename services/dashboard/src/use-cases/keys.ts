import { InternalCallError, SCOPES, type ApiKey, type Mode, type ROLL_DELAYS_SECONDS, type Scope } from '@idv/contracts';
import { appendAudit } from '../adapters/audit.repository';
import { claimFormNonce } from '../adapters/form-submissions.repository';
import type { FieldErrors } from '../domain/forms';
import { can } from '../domain/roles';
import type { DashboardPorts } from './ports';
import type { Viewer } from './sign-in';

export type KeysOutcome<T> = T | { kind: 'forbidden' } | { kind: 'not_found' };

/** The account's keys, newest first, never a secret (the keys service keeps only hashes). */
export async function listKeys(ports: DashboardPorts, viewer: Viewer): Promise<KeysOutcome<{ kind: 'keys'; keys: ApiKey[] }>> {
  if (!can(viewer.role, 'keys.read')) return { kind: 'forbidden' };
  const listed = await ports.platform.call('listApiKeys', { id: viewer.accountId });
  return { kind: 'keys', keys: listed.data };
}

export interface NewKeyInput {
  name: string;
  mode: Mode;
  scopes: Scope[];
  nonce: string;
}

export function parseNewKey(
  fields: Record<string, string>,
  scopes: readonly string[],
): { input: NewKeyInput; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const name = (fields.name ?? '').trim();
  if (!name) errors.name = 'required';
  else if ([...name].length > 200) errors.name = 'too_long';
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  else if (/[\u0000-\u001f\u007f]/.test(name)) errors.name = 'invalid_characters';
  const mode = fields.mode === 'live' ? 'live' : fields.mode === 'test' ? 'test' : null;
  if (!mode) errors.mode = 'required';
  const chosen = SCOPES.filter((scope) => scopes.includes(scope));
  if (chosen.length === 0) errors.scopes = 'required';
  return { input: { name, mode: mode ?? 'test', scopes: chosen, nonce: fields.nonce ?? '' }, errors };
}

export type CreateKeyResult = KeysOutcome<
  { kind: 'created'; key: ApiKey & { secret: string } } | { kind: 'duplicate' } | { kind: 'live_needs_active_account' }
>;

/**
 * A new key; its secret goes back to the page once and is never kept here. The form's nonce makes the
 * effect happen once when the form is sent several times at once (the copies are told it was done).
 */
export async function createKey(
  ports: DashboardPorts,
  viewer: Viewer,
  input: NewKeyInput,
  address: string,
): Promise<CreateKeyResult> {
  if (!can(viewer.role, 'keys.write')) return { kind: 'forbidden' };
  if (input.mode === 'live') {
    const account = await ports.platform.call('getAccount', { id: viewer.accountId });
    if (account.status !== 'active') return { kind: 'live_needs_active_account' };
  }
  if (!(await claimFormNonce(ports.pool, input.nonce, viewer.userId))) {
    return { kind: 'duplicate' };
  }
  const key = await ports.platform.call(
    'createApiKey',
    {},
    { account_id: viewer.accountId, mode: input.mode, name: input.name, scopes: input.scopes },
  );
  await appendAudit(ports.pool, {
    accountId: viewer.accountId,
    actorId: viewer.userId,
    action: 'api_key.created',
    target: key.id,
    address,
  });
  return { kind: 'created', key };
}

/** One key of the viewer's account; another account's key is not found, as an unknown one. */
export async function keyOf(
  ports: DashboardPorts,
  viewer: Viewer,
  keyId: string,
): Promise<KeysOutcome<{ kind: 'key'; key: ApiKey }>> {
  const listed = await listKeys(ports, viewer);
  if (listed.kind !== 'keys') return listed;
  const key = listed.keys.find((candidate) => candidate.id === keyId);
  return key ? { kind: 'key', key } : { kind: 'not_found' };
}

export async function revokeKey(
  ports: DashboardPorts,
  viewer: Viewer,
  keyId: string,
  address: string,
): Promise<KeysOutcome<{ kind: 'revoked'; key: ApiKey }>> {
  if (!can(viewer.role, 'keys.write')) return { kind: 'forbidden' };
  const found = await keyOf(ports, viewer, keyId);
  if (found.kind !== 'key') return found;
  const key = found.key.revoked_at ? found.key : await ports.platform.call('revokeApiKey', { id: found.key.id });
  if (!found.key.revoked_at) {
    await appendAudit(ports.pool, {
      accountId: viewer.accountId,
      actorId: viewer.userId,
      action: 'api_key.revoked',
      target: key.id,
      address,
    });
  }
  return { kind: 'revoked', key };
}

export type RollResult = KeysOutcome<
  { kind: 'rolled'; replacement: ApiKey & { secret: string }; rolled: ApiKey } | { kind: 'conflict' }
>;

/** A roll: the replacement's secret shown once, the old key revoked now or after the chosen delay. */
export async function rollKey(
  ports: DashboardPorts,
  viewer: Viewer,
  keyId: string,
  delaySeconds: (typeof ROLL_DELAYS_SECONDS)[number],
  address: string,
): Promise<RollResult> {
  if (!can(viewer.role, 'keys.write')) return { kind: 'forbidden' };
  const found = await keyOf(ports, viewer, keyId);
  if (found.kind !== 'key') return found;
  try {
    const rolled = await ports.platform.call('rollApiKey', { id: found.key.id }, { delay_seconds: delaySeconds });
    await appendAudit(ports.pool, {
      accountId: viewer.accountId,
      actorId: viewer.userId,
      action: 'api_key.rolled',
      target: `${found.key.id} -> ${rolled.replacement.id} (${delaySeconds}s)`,
      address,
    });
    return { kind: 'rolled', replacement: rolled.replacement, rolled: rolled.rolled };
  } catch (error) {
    if (error instanceof InternalCallError && error.status === 409) return { kind: 'conflict' };
    throw error;
  }
}
