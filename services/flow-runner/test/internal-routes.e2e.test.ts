import { INTERNAL_HEADERS, INTERNAL_ROUTES as CONTRACT_INTERNAL_ROUTES, contractPath, newId } from '@idv/contracts';
import { testEnv } from '@idv/testkit';
import { request } from 'undici';

/**
 * The flow-runner's internal routes share the public port with the person's pages (the ingress never
 * routes `/internal/`, see deploy-exposure.unit.test.ts): each must refuse a caller without the internal
 * token, or with a wrong one, before doing anything, and say nothing about the data.
 */
const INTERNAL_ROUTES = CONTRACT_INTERNAL_ROUTES.filter((route) => route.service === 'flow-runner').map((route) => ({
  method: route.method.toUpperCase(),
  path: route.path,
}));

test('the flow-runner has internal routes to check', () => {
  expect(INTERNAL_ROUTES).toEqual([
    { method: 'POST', path: '/internal/evidence-links' },
    { method: 'GET', path: '/internal/accounts/{id}/sessions/{sessionId}/timeline' },
    { method: 'GET', path: '/internal/accounts/{id}/sessions/{sessionId}/captures' },
    { method: 'GET', path: '/internal/accounts/{id}/sessions/{sessionId}/captures/{artifact}' },
    { method: 'GET', path: '/internal/accounts/{id}/sessions/{sessionId}/evidence-downloads' },
  ]);
});

/** The route called with fresh ids (a session no one has): the body sent, the answer as text. */
async function call(method: string, path: string, token: string | undefined) {
  const sessionId = newId('session');
  const body = method === 'POST' ? JSON.stringify({ session_ids: [sessionId] }) : undefined;
  const response = await request(
    `${testEnv().flowUrl}${contractPath({ path }, { id: newId('account'), sessionId, artifact: 'front' })}`,
    {
      method: method as 'POST' | 'GET',
      headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { [INTERNAL_HEADERS.token]: token }) },
      ...(body === undefined ? {} : { body }),
    },
  );
  return { status: response.statusCode, headers: response.headers, text: await response.body.text(), sessionId };
}

function notTheAccounts(answer: Awaited<ReturnType<typeof call>>) {
  expect(answer.status).toBe(404);
  expect(JSON.parse(answer.text)).toMatchObject({ code: 'not_found' });
}

/** What each route answers the internal token about a session no one has: no links; no such session of the account. */
const ALLOWED: Record<string, (answer: Awaited<ReturnType<typeof call>>) => void> = {
  '/internal/evidence-links': (answer) => {
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({ sessions: { [answer.sessionId]: [] } });
  },
  '/internal/accounts/{id}/sessions/{sessionId}/timeline': notTheAccounts,
  '/internal/accounts/{id}/sessions/{sessionId}/captures': notTheAccounts,
  '/internal/accounts/{id}/sessions/{sessionId}/captures/{artifact}': notTheAccounts,
  '/internal/accounts/{id}/sessions/{sessionId}/evidence-downloads': notTheAccounts,
};

describe('internal routes on the public port', () => {
  test.each(INTERNAL_ROUTES)(
    'when $path is called without the internal token or with a wrong one, then 401 and no data',
    async ({ method, path }) => {
      const real = testEnv().internalToken;
      for (const token of [undefined, '', 'wrong-token', `${real}x`, real.slice(0, -1)]) {
        const answer = await call(method, path, token);

        expect(answer.status).toBe(401);
        expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(JSON.parse(answer.text)).toMatchObject({ code: 'unauthorized', status: 401 });
        expect(answer.text).not.toContain('sessions');
        expect(answer.text).not.toContain(answer.sessionId);
      }
      // The same call with the token is answered: the refusals above were the token's, not the route's.
      const allowed = ALLOWED[path];
      expect(allowed).toBeDefined();
      allowed!(await call(method, path, real));
    },
  );

  test('when an unknown /internal path is called, then 404 and nothing else', async () => {
    const answer = await call('POST', '/internal/sessions/activity', testEnv().internalToken);

    expect(answer.status).toBe(404);
  });
});
