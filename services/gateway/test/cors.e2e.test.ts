import { api, testEnv } from '@idv/testkit';

describe('CORS', () => {
  it.each(['https://dashboard.idv.example', testEnv().dashboardUrl])(
    'when the origin is %s, then the preflight allows it',
    async (origin) => {
      const response = await api('OPTIONS', '/v1/verification-sessions', {
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,content-type',
        },
      });
      expect(response.status).toBe(204);
      expect(response.headers['access-control-allow-origin']).toBe(origin);
      expect(response.headers['access-control-allow-headers']).toContain('Authorization');
    },
  );

  // Exactly the dashboard's origins: another localhost port (any page a developer opens) gets nothing.
  it.each(['https://evil.example', 'http://localhost.evil.example', 'null', 'http://localhost:3000', 'http://127.0.0.1:5173'])(
    'when the origin is %s, then no CORS header is granted',
    async (origin) => {
      const preflight = await api('OPTIONS', '/v1/verification-sessions', {
        headers: { origin, 'access-control-request-method': 'GET' },
      });
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
      const simple = await api('GET', '/v1/openapi.json', { headers: { origin } });
      expect(simple.headers['access-control-allow-origin']).toBeUndefined();
    },
  );
});
