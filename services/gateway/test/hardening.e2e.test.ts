import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { newId, type Identity } from '@idv/contracts';
import { identityContext, identityHeaders } from '@idv/kit';
import { api, buildTenant, startServiceFromEnv, testEnv } from '@idv/testkit';
import { request } from 'undici';

/** Issue 9: what an adversarial test broke, each with the reproduction it was found with. */

/** A client address of the test's own (the test stack trusts loopback as a proxy), in 2001:db8::/32. */
function uniqueAddress(): string {
  const hex = randomBytes(8).toString('hex').match(/.{4}/g)!;
  return `2001:db8:${hex.join(':')}::1`;
}

/** One raw HTTP/1.1 exchange, for what ordinary clients refuse to send (two Authorization headers, raw bytes). */
function rawRequest(url: string, head: Buffer | string, body = ''): Promise<{ status: number; headers: string; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(Buffer.concat([Buffer.isBuffer(head) ? head : Buffer.from(head, 'latin1'), Buffer.from(body)]));
    });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [headers = '', rest = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1]), headers, body: rest });
    });
  });
}

function buildIdentity(scopes: Identity['scopes']): Identity {
  return { account_id: newId('account'), key_id: newId('apiKey'), mode: 'test', scopes };
}

/** The internal headers as the gateway would send them for one request (a captured pair, in the tests below). */
function signedFor(identity: Identity, method: string, url: string, requestId: string, at = Date.now()) {
  return {
    ...identityHeaders(identityContext(identity), { method, url, requestId }, testEnv().internalToken, at),
    'x-request-id': requestId,
  };
}

describe("the gateway's signed identity is good for one request only", () => {
  const sessionsUrl = () => testEnv().sessionsUrl;

  test('when a signed context is sent for the request it was made for, then the service answers it', async () => {
    const headers = signedFor(buildIdentity(['sessions:read']), 'GET', '/v1/verification-sessions', 'req-sign-1');
    const response = await request(`${sessionsUrl()}/v1/verification-sessions`, { headers });
    expect(response.statusCode).toBe(200);
    await response.body.dump();
  });

  test('when a captured pair is replayed, sent to another path, method or service, or is stale, then each is 401 unauthorized', async () => {
    const identity = buildIdentity(['sessions:read', 'sessions:write']);
    const captured = signedFor(identity, 'GET', '/v1/verification-sessions', 'req-captured');
    const first = await request(`${sessionsUrl()}/v1/verification-sessions`, { headers: captured });
    await first.body.dump();
    expect(first.statusCode).toBe(200);

    const attempts = [
      request(`${sessionsUrl()}/v1/verification-sessions`, { headers: captured }),
      request(`${sessionsUrl()}/v1/verification-sessions/${newId('session')}`, { headers: captured }),
      request(`${sessionsUrl()}/v1/verification-sessions`, {
        method: 'POST',
        headers: { ...captured, 'content-type': 'application/json' },
        body: JSON.stringify({ project_id: newId('project') }),
      }),
      request(`${testEnv().webhooksUrl}/v1/webhook-endpoints`, { headers: captured }),
      request(`${sessionsUrl()}/v1/verification-sessions`, {
        headers: signedFor(identity, 'GET', '/v1/verification-sessions', 'req-stale', Date.now() - 11_000),
      }),
      request(`${sessionsUrl()}/v1/verification-sessions`, {
        headers: { ...signedFor(identity, 'GET', '/v1/verification-sessions', 'req-a'), 'x-request-id': 'req-b' },
      }),
    ];
    const answers = await Promise.all(attempts);
    for (const answer of answers) {
      const body = (await answer.body.json()) as { code: string };
      expect({ status: answer.statusCode, code: body.code }).toEqual({ status: 401, code: 'unauthorized' });
    }
  });

  test('when a fresh, valid context lacks the scope of the route, then the service itself refuses it with 403 insufficient_scope', async () => {
    const readOnly = buildIdentity(['sessions:read']);
    const create = await request(`${sessionsUrl()}/v1/verification-sessions`, {
      method: 'POST',
      headers: { ...signedFor(readOnly, 'POST', '/v1/verification-sessions', 'req-scope-1'), 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: newId('project') }),
    });
    const endpoints = await request(`${testEnv().webhooksUrl}/v1/webhook-endpoints`, {
      headers: signedFor(readOnly, 'GET', '/v1/webhook-endpoints', 'req-scope-2'),
    });

    expect(create.statusCode).toBe(403);
    expect(await create.body.json()).toMatchObject({ code: 'insufficient_scope', required_scope: 'sessions:write' });
    expect(endpoints.statusCode).toBe(403);
    expect(await endpoints.body.json()).toMatchObject({ code: 'insufficient_scope', required_scope: 'webhooks:read' });
  });
});

/**
 * `count` requests from one client, 25 at a time. Each throttle refills a few tokens a second: sent one by
 * one on a loaded machine (CI runs the face tests beside these), requests can come slower than the refill
 * and never empty the bucket; a batch arrives at once, whatever the machine.
 */
async function inBatches<T>(count: number, send: () => Promise<T>, until: (answers: T[]) => boolean = () => false): Promise<T[]> {
  const answers: T[] = [];
  while (answers.length < count && !until(answers))
    answers.push(...(await Promise.all(Array.from({ length: Math.min(25, count - answers.length) }, send))));
  return answers;
}

/**
 * A forwarder in front of the keys service that counts key lookups, for a gateway replica of this test's
 * own: the shared keys service's metrics also count every other test running at the same time.
 */
async function countingKeys(): Promise<{ url: string; lookups: () => number; close: () => Promise<void> }> {
  let lookups = 0;
  const target = testEnv().keysUrl;
  const server = http.createServer((req, res) => {
    if (req.url === '/internal/api-keys/resolve') lookups += 1;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name)),
      ) as Record<string, string>;
      request(`${target}${req.url}`, {
        method: req.method as 'POST',
        headers,
        ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
      }).then(
        async (upstream) => {
          const body = Buffer.from(await upstream.body.arrayBuffer());
          res.writeHead(upstream.statusCode, { 'content-type': String(upstream.headers['content-type'] ?? 'application/json') });
          res.end(body);
        },
        () => {
          res.writeHead(502);
          res.end();
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    lookups: () => lookups,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('traffic without a valid key is throttled per client address', () => {
  test('when one address sends 150 unknown keys, then past the threshold it gets 429 with Retry-After and stops costing key lookups', async () => {
    const address = uniqueAddress();
    const keys = await countingKeys();
    const replica = await startServiceFromEnv('gateway', { KEYS_URL: keys.url, TRUSTED_PROXIES: '127.0.0.1,::1' });
    let responses: Awaited<ReturnType<typeof api>>[];
    try {
      responses = await inBatches(150, () =>
        api('GET', '/v1/verification-sessions', {
          baseUrl: replica.url,
          key: `sk_test_${randomBytes(24).toString('hex')}`,
          headers: { 'x-forwarded-for': address },
        }),
      );
    } finally {
      await replica.stop();
      await keys.close();
    }
    const statuses = responses.map((response) => response.status);
    const retryAfter = responses.find((response) => response.status === 429)?.headers['retry-after'];
    const lookups = keys.lookups();

    expect(statuses.filter((s) => s === 403).length).toBeGreaterThanOrEqual(100);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 403 || s === 429)).toBe(true);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    // Refused addresses are turned away before the keys service is asked, also within a burst sent at
    // once: each lookup in flight holds a token, so every lookup ends as a 403 and none as a 429.
    expect(lookups).toBe(statuses.filter((s) => s === 403).length);

    const other = await api('GET', '/v1/verification-sessions', {
      key: 'sk_test_unknown',
      headers: { 'x-forwarded-for': uniqueAddress() },
    });
    expect(other.status).toBe(403);
  });

  test('when one address asks for 250 random QR images, then it meets 429 with Retry-After', async () => {
    const address = uniqueAddress();
    const statuses = await inBatches(250, async () => {
      const response = await api('GET', `/v1/qr/lt_${randomBytes(16).toString('hex')}.png`, {
        headers: { 'x-forwarded-for': address },
      });
      return response.status;
    });
    expect(statuses.filter((s) => s === 404).length).toBeGreaterThanOrEqual(200);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
  });

  test('when one address opens 150 random links, then it meets the "too many attempts" page with 429', async () => {
    const address = uniqueAddress();
    const answers = await inBatches(150, async () => {
      const response = await request(`${testEnv().flowUrl}/l/lt_${randomBytes(16).toString('hex')}`, {
        headers: { 'x-forwarded-for': address, 'user-agent': 'Mozilla/5.0 (test person)' },
      });
      return { status: response.statusCode, text: await response.body.text() };
    });
    const statuses = answers.map((answer) => answer.status);
    const page = answers.find((answer) => answer.status === 429)?.text ?? '';
    expect(statuses.filter((s) => s === 404).length).toBeGreaterThanOrEqual(100);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(page).toContain('Demasiados intentos');
  });

  test('when a client writes its own X-Forwarded-For behind the trusted proxy, then only the hop the proxy saw counts', async () => {
    const address = uniqueAddress();
    const send = (forwardedFor: () => string) => async () => {
      const response = await api('GET', '/v1/verification-sessions', {
        key: 'sk_test_unknown',
        headers: { 'x-forwarded-for': forwardedFor() },
      });
      return response.status;
    };
    // Each request names a new client of its own before the hop the proxy saw: were that name believed,
    // every request would start a bucket of its own and none would be throttled.
    const statuses = await inBatches(
      300,
      send(() => `${uniqueAddress()}, ${address}`),
      (answers) => answers.includes(429),
    );
    expect(statuses.filter((status) => status === 403).length).toBeGreaterThanOrEqual(100);
    expect(statuses).toContain(429);

    // The hop alone is the same client, throttled with the rest.
    expect(
      await inBatches(
        25,
        send(() => address),
      ),
    ).toContain(429);
  });
});

describe('interoperability with ordinary HTTP clients', () => {
  test('when the scheme is written bearer or BEARER, then the key works (RFC 7235: case-insensitive)', async () => {
    const tenant = await buildTenant();
    for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
      const response = await api('GET', '/v1/verification-sessions', {
        headers: { authorization: `${scheme} ${tenant.testKey}` },
      });
      expect(response.status).toBe(200);
    }
  });

  test('when two Authorization headers are sent, then the request is refused with the 403 Forbidden body, whichever comes first', async () => {
    const tenant = await buildTenant();
    const { host } = new URL(testEnv().gatewayUrl);
    const response = await rawRequest(
      testEnv().gatewayUrl,
      `GET /v1/verification-sessions HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${tenant.testKey}\r\n` +
        `Authorization: Bearer sk_test_other\r\nX-Forwarded-For: ${uniqueAddress()}\r\nConnection: close\r\n\r\n`,
    );
    expect(response.status).toBe(403);
    expect(JSON.parse(response.body)).toEqual({ message: 'Forbidden' });
  });

  test('when an Idempotency-Key has 255 characters of two bytes each, then it is valid; 256 characters are not', async () => {
    const tenant = await buildTenant();
    const { host } = new URL(testEnv().gatewayUrl);
    const create = (key: string) => {
      const body = JSON.stringify({ project_id: tenant.project.id });
      const head = Buffer.concat([
        Buffer.from(
          `POST /v1/verification-sessions HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${tenant.testKey}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\nIdempotency-Key: `,
        ),
        Buffer.from(key, 'utf8'),
        Buffer.from('\r\n\r\n'),
      ]);
      return rawRequest(testEnv().gatewayUrl, head, body);
    };

    const accepted = await create('é'.repeat(255));
    const replayed = await create('é'.repeat(255));
    const tooLong = await create('é'.repeat(256));

    expect(accepted.status).toBe(201);
    expect(replayed.status).toBe(201);
    expect(replayed.headers.toLowerCase()).toContain('idempotent-replayed: true');
    expect(JSON.parse(replayed.body).id).toBe(JSON.parse(accepted.body).id);
    expect(tooLong.status).toBe(422);
    expect(JSON.parse(tooLong.body).code).toBe('validation_failed');
  });

  test('when an idempotent create is replayed, then the replay is byte for byte the first response', async () => {
    const tenant = await buildTenant();
    const key = `bytes-${randomBytes(4).toString('hex')}`;
    const first = await api('POST', '/v1/verification-sessions', {
      key: tenant.testKey,
      body: { project_id: tenant.project.id, external_ref: 'order-éñ-1', expires_in_hours: 2 },
      headers: { 'idempotency-key': key },
    });
    const replay = await api('POST', '/v1/verification-sessions', {
      key: tenant.testKey,
      body: { expires_in_hours: 2, external_ref: 'order-éñ-1', project_id: tenant.project.id },
      headers: { 'idempotency-key': key },
    });

    expect(first.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(first.text);
  });
});
