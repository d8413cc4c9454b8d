import { internalRoute } from '@idv/contracts';
import { route, type Pool } from '@idv/kit';
import { approveAccount, createAccount, getAccount, listAccounts, suspendAccount } from '../use-cases/accounts';
import { accountReadiness, createApiKey, listApiKeys, resolveApiKey, revokeApiKey, rollApiKey } from '../use-cases/api-keys';
import { toAccount, toApiKey, toResolvedKey } from './views';

export interface RouteDeps {
  pool: Pool;
}

/** Internal operations (INTERNAL_ROUTES): the operator CLI (accounts, keys) and the gateway (resolve). */
export const keysRoutes = [
  route(internalRoute('createAccount'), async ({ body }, { pool }: RouteDeps) => ({
    status: 201,
    body: toAccount(await createAccount(pool, body)),
  })),
  route(internalRoute('listAccounts'), async ({ query }, { pool }: RouteDeps) => {
    const listed = await listAccounts(pool, query.status, query.limit);
    return { status: 200, body: { object: 'list' as const, data: listed.accounts.map(toAccount), has_more: listed.hasMore } };
  }),
  route(internalRoute('getAccount'), async ({ params }, { pool }: RouteDeps) => ({
    status: 200,
    body: toAccount(await getAccount(pool, params.id)),
  })),
  route(internalRoute('getAccountReadiness'), async ({ params }, { pool }: RouteDeps) => {
    const { account, liveKeys } = await accountReadiness(pool, params.id);
    return { status: 200, body: { account: toAccount(account), live_keys: liveKeys } };
  }),
  route(internalRoute('approveAccount'), async ({ params }, { pool }: RouteDeps) => ({
    status: 200,
    body: toAccount(await approveAccount(pool, params.id)),
  })),
  route(internalRoute('suspendAccount'), async ({ params }, { pool }: RouteDeps) => ({
    status: 200,
    body: toAccount(await suspendAccount(pool, params.id)),
  })),
  route(internalRoute('listApiKeys'), async ({ params }, { pool }: RouteDeps) => {
    const keys = await listApiKeys(pool, params.id);
    return { status: 200, body: { object: 'list' as const, data: keys.map(toApiKey), has_more: false } };
  }),
  route(internalRoute('createApiKey'), async ({ body }, { pool }: RouteDeps) => {
    const { account_id, ...rest } = body;
    const { key, secret } = await createApiKey(pool, { accountId: account_id, ...rest });
    // The only response that ever carries the secret.
    return { status: 201, body: { ...toApiKey(key), secret } };
  }),
  route(internalRoute('revokeApiKey'), async ({ params }, { pool }: RouteDeps) => ({
    status: 200,
    body: toApiKey(await revokeApiKey(pool, params.id)),
  })),
  route(internalRoute('rollApiKey'), async ({ params, body }, { pool }: RouteDeps) => {
    const { replacement, secret, rolled } = await rollApiKey(pool, params.id, body.delay_seconds);
    return { status: 201, body: { replacement: { ...toApiKey(replacement), secret }, rolled: toApiKey(rolled) } };
  }),
  route(internalRoute('resolveApiKey'), async ({ body }, { pool }: RouteDeps) => ({
    status: 200,
    body: toResolvedKey(await resolveApiKey(pool, body.secret_hash)),
  })),
];
