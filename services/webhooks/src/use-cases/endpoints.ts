import { newId, type AccountId, type WebhookEndpointId } from '@idv/contracts';
import { AppError, notFound, withTransaction, type Cursor, type Pool } from '@idv/kit';
import * as endpoints from '../adapters/endpoints.repository';
import { cancelPendingMessages } from '../adapters/messages.repository';
import { urlProblem } from '../domain/address-policy';
import type { EndpointPatch, EndpointRecord, NewEndpoint } from '../domain/endpoint';
import type { SecretSealer } from '../domain/ports';
import { PREVIOUS_SECRET_GRACE_MS } from '../domain/schedule';
import { generateSecret } from '../domain/signature';

export interface EndpointDeps {
  pool: Pool;
  secrets: SecretSealer;
  /** Development and tests only: http:// and private targets (config.ts). */
  allowLocalTargets: boolean;
  /** Tells the local dispatcher to look at the schedule again. */
  onQueued: () => void;
}

/** An endpoint with its complete signing secret: only creation and rotation return one. */
export interface EndpointWithSecret {
  endpoint: EndpointRecord;
  secret: string;
}

function assertUrl(url: string | undefined, allowLocalTargets: boolean): void {
  if (url === undefined) return;
  const problem = urlProblem(url, allowLocalTargets);
  if (problem) {
    throw new AppError('validation_failed', `url ${problem}.`, { errors: [{ path: 'url', message: problem }] });
  }
}

export async function createEndpoint(deps: EndpointDeps, accountId: AccountId, input: NewEndpoint): Promise<EndpointWithSecret> {
  assertUrl(input.url, deps.allowLocalTargets);
  const secret = generateSecret();
  const endpoint = await endpoints.insertEndpoint(deps.pool, accountId, {
    id: newId('webhookEndpoint'),
    ...input,
    secretEnc: deps.secrets.seal(secret),
  });
  return { endpoint, secret };
}

/** One row more than `limit`: the page says whether there is a next one. */
export function listEndpoints(
  deps: Pick<EndpointDeps, 'pool'>,
  accountId: AccountId,
  page: { limit: number; after: Cursor | null },
): Promise<EndpointRecord[]> {
  return endpoints.listEndpoints(deps.pool, accountId, page);
}

export async function getEndpoint(
  deps: Pick<EndpointDeps, 'pool'>,
  accountId: AccountId,
  id: WebhookEndpointId,
): Promise<EndpointRecord> {
  const endpoint = await endpoints.findEndpoint(deps.pool, accountId, id);
  if (!endpoint) throw notFound('webhook endpoint');
  return endpoint;
}

export async function updateEndpoint(
  deps: EndpointDeps,
  accountId: AccountId,
  id: WebhookEndpointId,
  patch: EndpointPatch,
): Promise<EndpointRecord> {
  assertUrl(patch.url, deps.allowLocalTargets);
  const endpoint = await endpoints.updateEndpoint(deps.pool, accountId, id, patch);
  if (!endpoint) throw notFound('webhook endpoint');
  // A url change may have closed the circuit: let the schedule look again.
  if (patch.url !== undefined) deps.onQueued();
  return endpoint;
}

/** Soft delete (the delivery log keeps its history); the messages still waiting for it are dropped with it. */
export async function deleteEndpoint(
  deps: Pick<EndpointDeps, 'pool'>,
  accountId: AccountId,
  id: WebhookEndpointId,
): Promise<void> {
  await withTransaction(deps.pool, async (tx) => {
    if (!(await endpoints.softDeleteEndpoint(tx, accountId, id))) throw notFound('webhook endpoint');
    await cancelPendingMessages(tx, accountId, id);
  });
}

/** A new secret signs from now on; the previous one keeps signing for 24 h so receivers can switch. */
export async function rotateEndpointSecret(
  deps: EndpointDeps,
  accountId: AccountId,
  id: WebhookEndpointId,
): Promise<EndpointWithSecret> {
  const secret = generateSecret();
  const endpoint = await endpoints.rotateSecret(deps.pool, accountId, id, {
    secretEnc: deps.secrets.seal(secret),
    graceMs: PREVIOUS_SECRET_GRACE_MS,
  });
  if (!endpoint) throw notFound('webhook endpoint');
  return { endpoint, secret };
}
