import { createHmac } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { OpsClient } from '@idv/ops';
import { Stack, api, waitFor } from '@idv/testkit';

interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A stand-in for the sessions service that records what the gateway forwards, optionally slowly. */
function startRecordingUpstream(delayMs: () => number) {
  const recorded: Recorded[] = [];
  const cut = { count: 0 };
  const server = http.createServer((req, res) => {
    req.on('close', () => {
      if (!req.complete) cut.count++;
    });
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      recorded.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: true }));
      }, delayMs());
    });
  });
  return new Promise<{ url: string; recorded: Recorded[]; cut: { count: number }; close: () => Promise<void> }>((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        recorded,
        cut,
        close: () => new Promise((r) => server.close(() => r())),
      });
    });
  });
}

describe('gateway proxying (private stack with a recording upstream)', () => {
  let stack: Stack;
  let upstream: Awaited<ReturnType<typeof startRecordingUpstream>>;
  let delay = 0;
  let secret: string;
  let accountId: string;

  beforeAll(async () => {
    upstream = await startRecordingUpstream(() => delay);
    stack = await Stack.start({
      database: 'idv_test_gateway',
      services: ['keys', 'gateway'],
      env: { SESSIONS_URL: upstream.url },
    });
    const opsClient = new OpsClient({
      keysUrl: stack.url('keys'),
      sessionsUrl: upstream.url,
      internalToken: stack.env.INTERNAL_TOKEN!,
    });
    const account = await opsClient.createAccount({ name: 'Proxy S.A.', email: 'proxy@example.com' });
    await opsClient.approveAccount(account.id);
    accountId = account.id;
    secret = (await opsClient.createKey({ account_id: account.id, mode: 'live', name: 'proxy', scopes: ['sessions:write'] }))
      .secret;
  });

  afterAll(async () => {
    await stack?.stop();
    await upstream?.close();
  });

  /** Sends a POST declaring `declared` bytes, sends a few of them and goes away. */
  function abandonBody(declared: number): Promise<void> {
    const { hostname, port } = new URL(stack.gatewayUrl);
    return new Promise<void>((resolve, reject) => {
      const socket = net.connect(Number(port), hostname, () => {
        socket.write(
          `POST /v1/verification-sessions HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${secret}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n{"project_id":`,
        );
        setTimeout(() => socket.destroy(), 300);
      });
      socket.on('error', reject);
      socket.on('close', () => resolve());
    });
  }

  async function answersTheNextRequest(): Promise<void> {
    const next = await api('POST', '/v1/verification-sessions', {
      baseUrl: stack.gatewayUrl,
      key: secret,
      body: { project_id: 'prj_x' },
    });
    expect(next.status).toBe(200);
  }

  it('when a client goes away in the middle of a small body, then nothing reaches the upstream and the gateway goes on answering', async () => {
    const recordedBefore = upstream.recorded.length;
    const cutBefore = upstream.cut.count;
    await abandonBody(1000);
    await answersTheNextRequest();
    // A small declared body is read whole before the call: half a body is never forwarded.
    expect(upstream.recorded.length).toBe(recordedBefore + 1);
    expect(upstream.recorded.at(-1)!.body).toBe('{"project_id":"prj_x"}');
    expect(upstream.cut.count).toBe(cutBefore);
  });

  it('when a client goes away in the middle of a large body, then the upstream call ends at once and the gateway goes on answering', async () => {
    const before = upstream.cut.count;
    await abandonBody(200_000);
    await waitFor(() => upstream.cut.count > before, 3000, 50, 'the upstream request cut');
    await answersTheNextRequest();
  });

  it('when a request is proxied, then the upstream gets a signed identity with the mode of the key and the request id', async () => {
    const response = await api('POST', '/v1/verification-sessions?x=1', {
      baseUrl: stack.gatewayUrl,
      key: secret,
      body: { project_id: 'prj_x' },
      headers: { 'idempotency-key': 'abc', 'x-request-id': 'req-from-client-1' },
    });
    expect(response.status).toBe(200);
    expect(response.headers['x-request-id']).toBe('req-from-client-1');
    const last = upstream.recorded.at(-1)!;
    expect(last.url).toBe('/v1/verification-sessions?x=1');
    expect(last.body).toBe('{"project_id":"prj_x"}');
    expect(last.headers['idempotency-key']).toBe('abc');
    expect(last.headers['x-request-id']).toBe('req-from-client-1');
    expect(last.headers.authorization).toBeUndefined();
    const context = last.headers['x-idv-context'] as string;
    // The signature binds this very request: time, nonce, method, path and query, request id, identity.
    const [, t, n, v1] = /^t=(\d+),n=([A-Za-z0-9_-]+),v1=([0-9a-f]{64})$/.exec(
      last.headers['x-idv-context-signature'] as string,
    )!;
    expect(Math.abs(Date.now() - Number(t))).toBeLessThan(5000);
    const signed = `v1\n${t}\n${n}\nPOST\n/v1/verification-sessions?x=1\nreq-from-client-1\n${context}`;
    expect(v1).toBe(createHmac('sha256', stack.env.INTERNAL_TOKEN!).update(signed).digest('hex'));
    expect(JSON.parse(Buffer.from(context, 'base64url').toString())).toMatchObject({
      account_id: accountId,
      mode: 'live',
      scopes: ['sessions:write'],
    });
  });

  it('when a client sends internal identity headers itself, then they never reach the upstream', async () => {
    await api('GET', '/v1/verification-sessions', {
      baseUrl: stack.gatewayUrl,
      key: secret,
      headers: { 'x-idv-context': 'forged', 'x-idv-context-signature': 'forged', 'x-idv-internal-token': 'forged' },
    });
    const last = upstream.recorded.at(-1)!;
    expect(last.headers['x-idv-context']).not.toBe('forged');
    expect(last.headers['x-idv-context-signature']).not.toBe('forged');
    expect(last.headers['x-idv-internal-token']).toBeUndefined();
  });

  it('when the declared body is over 256 KiB, then 413 payload_too_large without reaching the upstream', async () => {
    const before = upstream.recorded.length;
    const response = await api('POST', '/v1/verification-sessions', {
      baseUrl: stack.gatewayUrl,
      key: secret,
      rawBody: JSON.stringify({ project_id: 'x'.repeat(300 * 1024) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ code: 'payload_too_large' });
    expect(upstream.recorded.length).toBe(before);
  });

  it('when the gateway gets SIGTERM with requests under way, then every one of them completes and it exits 0', async () => {
    const replica = await stack.startReplica('gateway');
    delay = 400;
    try {
      const before = upstream.recorded.length;
      const inFlight = Array.from({ length: 20 }, () =>
        api('GET', '/v1/verification-sessions', { baseUrl: replica.url, key: secret }),
      );
      // Every request has reached the upstream through the gateway: all 20 are under way.
      await waitFor(() => (upstream.recorded.length >= before + 20 ? true : undefined), 10_000, 5);
      const exit = new Promise<number | null>((resolve) => replica.process.once('exit', (code) => resolve(code)));
      replica.process.kill('SIGTERM');
      const responses = await Promise.all(inFlight);
      expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
      expect(await exit).toBe(0);
      await expect(api('GET', '/v1/verification-sessions', { baseUrl: replica.url, key: secret })).rejects.toThrow();
    } finally {
      delay = 0;
    }
  });

  it('when the upstream is down, then 502 upstream_unavailable problem, never a stack trace', async () => {
    await upstream.close();
    const response = await api('GET', '/v1/verification-sessions', { baseUrl: stack.gatewayUrl, key: secret });
    expect(response.status).toBe(502);
    expect(response.body).toMatchObject({ code: 'upstream_unavailable' });
    expect(response.text).not.toMatch(/at .*\.js/);
  });
});

describe('when the keys service fails', () => {
  let stack: Stack;
  let keys: http.Server;
  let keysStatus = 500;

  beforeAll(async () => {
    keys = http.createServer((req, res) => {
      req.resume();
      res.writeHead(req.url === '/healthz' ? 200 : keysStatus, { 'content-type': 'application/json' });
      res.end('{}');
    });
    await new Promise<void>((resolve) => keys.listen(0, '127.0.0.1', resolve));
    const { port } = keys.address() as AddressInfo;
    stack = await Stack.start({
      database: 'idv_test_gateway_keys',
      services: ['gateway'],
      env: { KEYS_URL: `http://127.0.0.1:${port}` },
    });
  });

  afterAll(async () => {
    await stack?.stop();
    await new Promise((resolve) => keys.close(resolve));
  });

  it('then a key the gateway must look up gets 503 service_unavailable with Retry-After, which clients retry (not 401)', async () => {
    keysStatus = 500;
    const response = await api('GET', '/v1/verification-sessions', { baseUrl: stack.gatewayUrl, key: 'sk_test_keys_down_1' });
    expect(response.status).toBe(503);
    expect(response.body.code).toBe('service_unavailable');
    expect(response.headers['retry-after']).toBe('1');
  });

  it('then an unusable answer that is not a server failure stays 401 unauthorized (a broken context)', async () => {
    keysStatus = 400;
    const response = await api('GET', '/v1/verification-sessions', { baseUrl: stack.gatewayUrl, key: 'sk_test_keys_down_2' });
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('unauthorized');
  });
});
