import { INTERNAL_HEADERS, INTERNAL_ROUTES as CONTRACT_INTERNAL_ROUTES, newId } from '@idv/contracts';
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
  expect(INTERNAL_ROUTES).toEqual([{ method: 'POST', path: '/internal/evidence-links' }]);
});

async function call(method: string, path: string, token: string | undefined) {
  const body = JSON.stringify({ session_ids: [newId('session')] });
  const response = await request(`${testEnv().flowUrl}${path}`, {
    method: method as 'POST',
    headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { [INTERNAL_HEADERS.token]: token }) },
    body,
  });
  return { status: response.statusCode, headers: response.headers, text: await response.body.text(), body };
}

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
        expect(answer.text).not.toContain(JSON.parse(answer.body).session_ids[0]);
      }
      // The same call with the token is answered: the refusals above were the token's, not the route's.
      const allowed = await call(method, path, real);
      expect(allowed.status).toBe(200);
      expect(JSON.parse(allowed.text)).toEqual({ sessions: { [JSON.parse(allowed.body).session_ids[0]]: [] } });
    },
  );

  test('when an unknown /internal path is called, then 404 and nothing else', async () => {
    const answer = await call('POST', '/internal/sessions/activity', testEnv().internalToken);

    expect(answer.status).toBe(404);
  });
});
