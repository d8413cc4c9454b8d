import { CreateAccountBodySchema, CreateApiKeyBodySchema, ResolveKeyBodySchema, asId, idSchema } from '@idv/contracts';
import { endpoint, type Pool } from '@idv/kit';
import { Router } from 'express';
import { z } from 'zod';
import { approveAccount, createAccount, getAccount, suspendAccount } from '../use-cases/accounts';
import { createApiKey, listApiKeys, resolveApiKey, revokeApiKey } from '../use-cases/api-keys';
import { toAccount, toApiKey, toResolvedKey } from './views';

const accountParams = z.object({ id: idSchema('account').transform((id) => asId('account', id)) });
const keyParams = z.object({ id: idSchema('apiKey').transform((id) => asId('apiKey', id)) });

/** Internal operations: the operator CLI (accounts, keys) and the gateway (resolve). */
export function keysRouter(pool: Pool): Router {
  const router = Router();

  router.post(
    '/accounts',
    endpoint({ body: CreateAccountBodySchema }, async ({ body }) => ({
      status: 201,
      body: toAccount(await createAccount(pool, body)),
    })),
  );
  router.get(
    '/accounts/:id',
    endpoint({ params: accountParams }, async ({ params }) => ({
      status: 200,
      body: toAccount(await getAccount(pool, params.id)),
    })),
  );
  router.post(
    '/accounts/:id/approve',
    endpoint({ params: accountParams }, async ({ params }) => ({
      status: 200,
      body: toAccount(await approveAccount(pool, params.id)),
    })),
  );
  router.post(
    '/accounts/:id/suspend',
    endpoint({ params: accountParams }, async ({ params }) => ({
      status: 200,
      body: toAccount(await suspendAccount(pool, params.id)),
    })),
  );

  router.get(
    '/accounts/:id/api-keys',
    endpoint({ params: accountParams }, async ({ params }) => {
      const keys = await listApiKeys(pool, params.id);
      return { status: 200, body: { object: 'list', data: keys.map(toApiKey), has_more: false } };
    }),
  );
  router.post(
    '/api-keys',
    endpoint({ body: CreateApiKeyBodySchema }, async ({ body }) => {
      const { account_id, ...rest } = body;
      const { key, secret } = await createApiKey(pool, { accountId: asId('account', account_id), ...rest });
      // The only response that ever carries the secret.
      return { status: 201, body: { ...toApiKey(key), secret } };
    }),
  );
  router.post(
    '/api-keys/:id/revoke',
    endpoint({ params: keyParams }, async ({ params }) => ({ status: 200, body: toApiKey(await revokeApiKey(pool, params.id)) })),
  );
  router.post(
    '/api-keys/resolve',
    endpoint({ body: ResolveKeyBodySchema }, async ({ body }) => ({
      status: 200,
      body: toResolvedKey(await resolveApiKey(pool, body.secret_hash)),
    })),
  );

  return router;
}
