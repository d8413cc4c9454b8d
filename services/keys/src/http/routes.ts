import {
  AccountStatusChangedDataSchema,
  CreateAccountBodySchema,
  CreateApiKeyBodySchema,
  DOMAIN_EVENTS,
  ResolveKeyBodySchema,
  idSchema,
  newId,
  type AccountStatus,
  type DomainEvent,
} from '@idv/contracts';
import { AppError, endpoint, enqueueEvent, notFound, withTransaction, type Pool } from '@idv/kit';
import { Router } from 'express';
import { z } from 'zod';
import { generateSecret, hashSecret, normalizeScopes } from '../domain/api-keys';
import * as repo from '../adapters/keys.repository';

const accountParams = z.object({ id: idSchema('account') });
const keyParams = z.object({ id: idSchema('apiKey') });

function domainEvent<T extends Record<string, unknown>>(type: string, data: T): DomainEvent<T> {
  return { id: newId('event'), type, occurred_at: new Date().toISOString(), data };
}

/** Internal operations: the operator CLI (accounts, keys) and the gateway (resolve). */
export function keysRouter(pool: Pool): Router {
  const router = Router();

  router.post(
    '/accounts',
    endpoint({ body: CreateAccountBodySchema }, async ({ body }) => {
      const account = await repo.insertAccount(pool, { id: newId('account'), ...body });
      return { status: 201, body: account };
    }),
  );

  router.get(
    '/accounts/:id',
    endpoint({ params: accountParams }, async ({ params }) => {
      const account = await repo.findAccount(pool, params.id);
      if (!account) throw notFound('account');
      return { status: 200, body: account };
    }),
  );

  const setStatus = (status: AccountStatus) =>
    endpoint({ params: accountParams }, async ({ params }) => {
      const account = await withTransaction(pool, async (tx) => {
        const updated = await repo.setAccountStatus(tx, params.id, status);
        if (!updated) throw notFound('account');
        const data = AccountStatusChangedDataSchema.parse({ account_id: updated.id, status });
        await enqueueEvent(tx, domainEvent(DOMAIN_EVENTS.accountStatusChanged, data));
        return updated;
      });
      return { status: 200, body: account };
    });
  router.post('/accounts/:id/approve', setStatus('active'));
  router.post('/accounts/:id/suspend', setStatus('suspended'));

  router.get(
    '/accounts/:id/api-keys',
    endpoint({ params: accountParams }, async ({ params }) => {
      if (!(await repo.findAccount(pool, params.id))) throw notFound('account');
      const keys = await repo.listKeys(pool, params.id);
      return { status: 200, body: { object: 'list', data: keys, has_more: false } };
    }),
  );

  router.post(
    '/api-keys',
    endpoint({ body: CreateApiKeyBodySchema }, async ({ body }) => {
      if (!(await repo.findAccount(pool, body.account_id))) {
        throw new AppError('validation_failed', 'account_id does not exist.', {
          errors: [{ path: 'account_id', message: 'no such account' }],
        });
      }
      const secret = generateSecret(body.mode);
      const key = await repo.insertKey(pool, {
        id: newId('apiKey'),
        accountId: body.account_id,
        name: body.name,
        mode: body.mode,
        scopes: normalizeScopes(body.scopes),
        secretHash: hashSecret(secret),
      });
      // The only response that ever carries the secret.
      return { status: 201, body: { ...key, secret } };
    }),
  );

  router.post(
    '/api-keys/:id/revoke',
    endpoint({ params: keyParams }, async ({ params }) => {
      const key = await withTransaction(pool, async (tx) => {
        const revoked = await repo.revokeKey(tx, params.id);
        if (!revoked) throw notFound('API key');
        await enqueueEvent(
          tx,
          domainEvent(DOMAIN_EVENTS.apiKeyRevoked, {
            key_id: revoked.key.id,
            account_id: revoked.key.account_id,
            secret_hash: revoked.secretHash,
          }),
        );
        return revoked.key;
      });
      return { status: 200, body: key };
    }),
  );

  router.post(
    '/api-keys/resolve',
    endpoint({ body: ResolveKeyBodySchema }, async ({ body }) => {
      const resolved = await repo.resolveKey(pool, body.secret_hash);
      if (!resolved) throw notFound('API key');
      if (!resolved.revoked) void repo.touchKey(pool, resolved.key_id).catch(() => undefined);
      return { status: 200, body: resolved };
    }),
  );

  return router;
}
