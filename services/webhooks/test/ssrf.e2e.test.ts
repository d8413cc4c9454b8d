import net from 'node:net';
import type { Stack } from '@idv/testkit';
import pg from 'pg';
import {
  call,
  createEndpoint,
  deliveries,
  eventually,
  newTenant,
  stackTarget,
  startPrivateStack,
  type Target,
} from './support/harness';

/** Counts TCP connections: a refused target must never be dialled. */
let listener: net.Server;
let connections = 0;
let port = 0;
let stack: Stack;
let target: Target;

beforeAll(async () => {
  listener = net.createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as net.AddressInfo).port;
  stack = await startPrivateStack({
    database: 'idv_test_webhooks_ssrf',
    services: ['keys', 'webhooks', 'gateway'],
    env: { WEBHOOKS_ALLOW_LOCAL_TARGETS: 'false' },
  });
  target = stackTarget(stack);
}, 90_000);

afterAll(async () => {
  await stack?.stop();
  await new Promise<void>((resolve) => listener.close(() => resolve()));
});

describe('SSRF protection (WEBHOOKS_ALLOW_LOCAL_TARGETS=false)', () => {
  it('when the url is not https, then creation is 422 validation_failed', async () => {
    const tenant = await newTenant(target, undefined, { project: false });
    for (const url of [`http://127.0.0.1:${port}/h`, 'http://example.com/h', 'ftp://example.com/h']) {
      const response = await call(tenant, 'POST', '/v1/webhook-endpoints', { url, events: ['test'] });
      expect([url, response.status, response.body.code]).toEqual([url, 422, 'validation_failed']);
    }
    const update = await call(
      tenant,
      'PUT',
      `/v1/webhook-endpoints/${(await createEndpoint(tenant, 'https://example.com/h')).id}`,
      {
        url: 'http://example.com/h',
      },
    );
    expect(update.status).toBe(422);
  });

  it.each([
    ['loopback', () => `https://127.0.0.1:${port}/hook`, 'a loopback address'],
    ['IPv6 loopback', () => `https://[::1]:${port}/hook`, 'a loopback address'],
    ['IPv4-mapped IPv6 loopback', () => `https://[::ffff:127.0.0.1]:${port}/hook`, 'a loopback address'],
    ['a hex-encoded loopback', () => `https://0x7f000001:${port}/hook`, 'a loopback address'],
    ['IPv4-compatible IPv6 loopback', () => `https://[::7f00:1]:${port}/hook`, 'an IPv4-compatible IPv6 address'],
    ['IPv4-compatible IPv6 metadata', () => 'https://[::a9fe:a9fe]/latest/meta-data/', 'an IPv4-compatible IPv6 address'],
    ['NAT64 of loopback', () => 'https://[64:ff9b::7f00:1]/hook', 'a NAT64 address'],
    ['6to4 of loopback', () => 'https://[2002:7f00:1::]/hook', 'a 6to4 address'],
    ['the cloud metadata address', () => 'https://169.254.169.254/latest/meta-data/', 'a cloud metadata address'],
    ['the IPv6 metadata address', () => 'https://[fd00:ec2::254]/latest/meta-data/', 'a cloud metadata address'],
    ['a private address', () => 'https://10.0.0.1/hook', 'a private address'],
    ['a CGNAT address', () => 'https://100.64.0.1/hook', 'a carrier-grade NAT address'],
    ['the unspecified address', () => `https://0.0.0.0:${port}/hook`, 'the unspecified address'],
  ])(
    'when the url is an IP literal of %s, then creation and update are 422 validation_failed naming it',
    async (_name, url, what) => {
      const tenant = await newTenant(target, undefined, { project: false });
      const created = await call(tenant, 'POST', '/v1/webhook-endpoints', { url: url(), events: ['test'] });
      expect(created.status).toBe(422);
      expect(created.body).toMatchObject({
        code: 'validation_failed',
        detail: `url points to ${what}.`,
        errors: [{ path: 'url', message: `points to ${what}` }],
      });
      const endpoint = await createEndpoint(tenant, 'https://example.com/h');
      const updated = await call(tenant, 'PUT', `/v1/webhook-endpoints/${endpoint.id}`, { url: url() });
      expect([updated.status, updated.body.code, updated.body.detail]).toEqual([
        422,
        'validation_failed',
        `url points to ${what}.`,
      ]);
    },
  );

  /** Sends a test event and returns its delivery record, checking no connection reached the listener. */
  async function refusedBeforeConnecting(tenant: Awaited<ReturnType<typeof newTenant>>, endpointId: string) {
    const before = connections;
    const started = Date.now();
    expect((await call(tenant, 'POST', `/v1/webhook-endpoints/${endpointId}/test`)).status).toBe(202);
    const [entry] = await eventually(
      async () => {
        const log = await deliveries(tenant, endpointId);
        return log.length > 0 ? log : undefined;
      },
      15_000,
      'the refused attempt',
    );
    expect(entry).toMatchObject({ status: 'failed', error: 'disallowed_address', http_status: null });
    // Refused, not timed out: no connection was attempted.
    expect(Date.now() - started).toBeLessThan(3000);
    expect(connections).toBe(before);
  }

  it('when the endpoint points at a name resolving to loopback, then the attempt fails with disallowed_address before connecting', async () => {
    const tenant = await newTenant(target, undefined, { project: false });
    const endpoint = await createEndpoint(tenant, `https://localhost:${port}/hook`);
    await refusedBeforeConnecting(tenant, endpoint.id);
  });

  it.each([
    ['loopback', () => `https://127.0.0.1:${port}/hook`],
    ['IPv4-compatible IPv6 loopback', () => `https://[::7f00:1]:${port}/hook`],
    ['IPv4-mapped IPv6 loopback', () => `https://[::ffff:7f00:1]:${port}/hook`],
    ['the cloud metadata address', () => 'https://169.254.169.254/latest/meta-data/'],
  ])(
    'when a stored endpoint points at %s (saved before creation refused it), then the attempt fails with disallowed_address before connecting',
    async (_name, url) => {
      const tenant = await newTenant(target, undefined, { project: false });
      const endpoint = await createEndpoint(tenant, 'https://example.com/hook');
      const db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
      await db.connect();
      try {
        await db.query('UPDATE webhooks.endpoints SET url = $1 WHERE id = $2', [url(), endpoint.id]);
      } finally {
        await db.end();
      }
      await refusedBeforeConnecting(tenant, endpoint.id);
    },
  );
});
