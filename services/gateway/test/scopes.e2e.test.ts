import { PUBLIC_ROUTES, SCOPES, scopeSatisfies, type PublicRoute } from '@idv/contracts';
import { api, buildAccount, buildKey } from '@idv/testkit';

const SAMPLE_IDS: Record<string, string> = {
  id: '01JD3Z8Q5X8R0VQ1T7W9Y2K4M6',
};

function concretePath(route: PublicRoute): string {
  const prefix = route.path.startsWith('/v1/verification-sessions')
    ? 'vs_'
    : route.path.startsWith('/v1/webhook-endpoints')
      ? 'whep_'
      : 'whd_';
  return route.path.replace('{id}', `${prefix}${SAMPLE_IDS.id}`) + (route.query?.shape.month ? '?month=2026-11' : '');
}

const keyedRoutes = PUBLIC_ROUTES.filter((route) => route.scope !== null);

describe('scopes matrix', () => {
  it.each(SCOPES)('when a key holds only %s, then every route family answers by the scope rules', async (scope) => {
    // One account per scope keeps the 17 calls within the rate-limit burst.
    const account = await buildAccount();
    const key = await buildKey(account.id, 'test', [scope]);
    for (const route of keyedRoutes) {
      const response = await api(route.method.toUpperCase(), concretePath(route), {
        key: key.secret,
        body: route.body ? {} : undefined,
      });
      const allowed = scopeSatisfies([scope], route.scope!);
      if (allowed) {
        expect({ route: route.operationId, code: response.body?.code }).not.toEqual({
          route: route.operationId,
          code: 'insufficient_scope',
        });
      } else {
        expect({ route: route.operationId, status: response.status, body: response.body }).toMatchObject({
          route: route.operationId,
          status: 403,
          body: { code: 'insufficient_scope', required_scope: route.scope },
        });
      }
    }
  });

  it('when a key holds every scope, then no route refuses it for scope', async () => {
    const account = await buildAccount();
    const key = await buildKey(account.id, 'live');
    for (const route of keyedRoutes) {
      const response = await api(route.method.toUpperCase(), concretePath(route), {
        key: key.secret,
        body: route.body ? {} : undefined,
      });
      expect(response.body?.code).not.toBe('insufficient_scope');
    }
  });
});
