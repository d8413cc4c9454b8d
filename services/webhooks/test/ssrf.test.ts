import net from 'node:net';
import type { Stack } from '@idv/testkit';
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
    ['loopback', () => `https://127.0.0.1:${port}/hook`],
    ['a name resolving to loopback', () => `https://localhost:${port}/hook`],
    ['IPv6 loopback', () => `https://[::1]:${port}/hook`],
    ['IPv4-mapped IPv6 loopback', () => `https://[::ffff:127.0.0.1]:${port}/hook`],
    ['a hex-encoded loopback', () => `https://0x7f000001:${port}/hook`],
    ['the cloud metadata address', () => 'https://169.254.169.254/latest/meta-data/'],
    ['the IPv6 metadata address', () => 'https://[fd00:ec2::254]/latest/meta-data/'],
    ['a private address', () => 'https://10.0.0.1/hook'],
    ['a CGNAT address', () => 'https://100.64.0.1/hook'],
    ['the unspecified address', () => `https://0.0.0.0:${port}/hook`],
  ])('when the endpoint points at %s, then the attempt fails with disallowed_address before connecting', async (_name, url) => {
    const tenant = await newTenant(target, undefined, { project: false });
    const endpoint = await createEndpoint(tenant, url());
    const before = connections;
    const started = Date.now();
    expect((await call(tenant, 'POST', `/v1/webhook-endpoints/${endpoint.id}/test`)).status).toBe(202);
    const [entry] = await eventually(
      async () => {
        const log = await deliveries(tenant, endpoint.id);
        return log.length > 0 ? log : undefined;
      },
      15_000,
      'the refused attempt',
    );
    expect(entry).toMatchObject({ status: 'failed', error: 'disallowed_address', http_status: null });
    // Refused, not timed out: no connection was attempted.
    expect(Date.now() - started).toBeLessThan(3000);
    expect(connections).toBe(before);
  });
});
