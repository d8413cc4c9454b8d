/**
 * The fast routes (`withFastRoutes`) against express, on the same app: every request is sent twice, once
 * in the shape the fast path takes and once in a shape it leaves to express (a trailing slash, which
 * express routes alike; a GET with an empty JSON body), and the two answers must be the same — status,
 * content type, caching, problem body but for its request id — and so must the metrics series they add.
 * A spy on express's `handle` says which path answered, so the fast path cannot silently be unused.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import { INTERNAL_HEADERS, newId, type Identity } from '@idv/contracts';
import { AppError, createLogger, createMetrics, identityContext, identityHeaders, type Metrics } from '@idv/kit';
import { createApp, type SessionsDeps } from '../src/app';

const TOKEN = 'internal-token-for-the-fast-route-test';
const sessionId = newId('session');
const identity: Identity = {
  account_id: newId('account'),
  key_id: newId('apiKey'),
  mode: 'test',
  scopes: ['sessions:read', 'sessions:write'],
};
const readOnly: Identity = { ...identity, scopes: ['sessions:read'] };

// Every request express answers goes through `app.handle` (the app copies it from `application`).
const handle = jest.spyOn(express.application as unknown as { handle: (...args: unknown[]) => void }, 'handle');
let server: http.Server;
let base: string;
let metrics: Metrics;
const logLines: string[] = [];

const session = { id: sessionId, object: 'verification_session', status: 'pending' };

beforeAll(async () => {
  metrics = createMetrics('sessions');
  // Answers a microtask later, as the real service's promises do.
  const later = <T>(answer: () => T): Promise<T> => Promise.resolve().then(answer);
  const service = {
    create: (_identity: Identity, body: { external_ref?: string }, key?: string) =>
      later(() => ({
        status: 201,
        body: JSON.stringify({ ...session, external_ref: body.external_ref ?? null }),
        replayed: key === 'replayed',
      })),
    get: (_identity: Identity, id: string) =>
      later(() => {
        if (id !== sessionId) throw new AppError('not_found', 'No such verification session.');
        return session;
      }),
    list: () => later(() => ({ object: 'list', data: [session], has_more: false })),
    reportActivity: (ids: string[]) => later(() => Object.fromEntries(ids.map((id) => [id, 'active']))),
    redeem: () =>
      later(() => {
        throw new AppError('link_redeemed', 'This link was already redeemed.');
      }),
    getInternal: () =>
      later(() => {
        throw new Error('the store failed');
      }),
  };
  const deps = {
    pool: {},
    broker: { check: () => later(() => undefined) },
    logger: createLogger({
      service: 'sessions',
      destination: new Writable({
        write(chunk: Buffer, _encoding, done) {
          logLines.push(chunk.toString());
          done();
        },
      }),
    }),
    metrics,
    service,
    evidence: { attach: (data: unknown[]) => later(() => data), attachOne: (one: unknown) => later(() => one) },
    internalToken: TOKEN,
  } as unknown as SessionsDeps;
  server = http.createServer(createApp(deps));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  handle.mockRestore();
  await new Promise((resolve) => server.close(resolve));
});

interface Sent {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Signs the request with this identity, as the gateway does. */
  as?: Identity;
}

interface Answer {
  status: number;
  type: string | null;
  cacheControl: string | null;
  replayed: string | null;
  body: unknown;
  /** Whether express answered. */
  byExpress: boolean;
}

async function send({ method, path, headers = {}, body, as }: Sent): Promise<Answer> {
  const before = handle.mock.calls.length;
  const requestId = `req_${newId('session').slice(3)}`;
  const signed = as ? identityHeaders(identityContext(as), { method, url: path, requestId }, TOKEN) : {};
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { [INTERNAL_HEADERS.requestId]: requestId, ...signed, ...headers },
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    const json = JSON.parse(text) as Record<string, unknown>;
    delete json.request_id;
    parsed = json;
  } catch {
    // not JSON: compared as text
  }
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    cacheControl: response.headers.get('cache-control'),
    replayed: response.headers.get('idempotent-replayed'),
    body: parsed,
    byExpress: handle.mock.calls.length > before,
  };
}

const internal = { [INTERNAL_HEADERS.token]: TOKEN };
const json = { 'content-type': 'application/json' };
const activity = '/internal/sessions/activity';
const oneSession = `/v1/verification-sessions/${sessionId}`;

/** The same request in the fast path's shape and with a trailing slash (express's). */
const cases: [string, Sent, number][] = [
  ['internal: no token', { method: 'POST', path: activity, headers: json, body: '{"session_ids":[]}' }, 401],
  [
    'internal: a bad token',
    { method: 'POST', path: activity, headers: { ...json, [INTERNAL_HEADERS.token]: 'nope' }, body: '{}' },
    401,
  ],
  [
    'internal: broken JSON is answered before the token',
    { method: 'POST', path: activity, headers: json, body: '{"session_ids":' },
    400,
  ],
  [
    'internal: a JSON string where strict JSON wants an object',
    { method: 'POST', path: activity, headers: { ...internal, ...json }, body: ' "text"' },
    400,
  ],
  ['internal: whitespace only', { method: 'POST', path: activity, headers: { ...internal, ...json }, body: ' \n' }, 400],
  ['internal: an empty body is {}', { method: 'POST', path: activity, headers: { ...internal, ...json }, body: '' }, 422],
  ['internal: no body at all', { method: 'POST', path: activity, headers: internal }, 422],
  [
    'internal: a field of the wrong type',
    { method: 'POST', path: activity, headers: { ...internal, ...json }, body: '{"session_ids":"x"}' },
    422,
  ],
  [
    'internal: an unknown field',
    { method: 'POST', path: activity, headers: { ...internal, ...json }, body: `{"session_ids":["${sessionId}"],"x":1}` },
    422,
  ],
  [
    'internal: a good report',
    { method: 'POST', path: activity, headers: { ...internal, ...json }, body: `{"session_ids":["${sessionId}"]}` },
    200,
  ],
  [
    'internal: a good report with a byte-order mark and charset',
    {
      method: 'POST',
      path: activity,
      headers: { ...internal, 'content-type': 'application/json; charset=utf-8' },
      body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`{"session_ids":["${sessionId}"]}`)]),
    },
    200,
  ],
  ['internal: a malformed id in the path', { method: 'GET', path: '/internal/sessions/not-an-id', headers: internal }, 422],
  [
    'internal: a refusal of the service',
    { method: 'POST', path: '/internal/links/lt_abcdefghijklmnopqrstuvwxyz012345/redeem', headers: internal },
    410,
  ],
  ['internal: a failure of the service', { method: 'GET', path: `/internal/sessions/${sessionId}`, headers: internal }, 500],
  ['public: no identity', { method: 'GET', path: oneSession }, 401],
  ['public: get one', { method: 'GET', path: oneSession, as: identity }, 200],
  [
    'public: get one that is not there',
    { method: 'GET', path: `/v1/verification-sessions/${newId('session')}`, as: identity },
    404,
  ],
  ['public: a malformed id', { method: 'GET', path: '/v1/verification-sessions/vs_nope', as: identity }, 422],
  ['public: list', { method: 'GET', path: '/v1/verification-sessions', as: identity }, 200],
  ['public: list with a bad limit', { method: 'GET', path: '/v1/verification-sessions?limit=x', as: identity }, 422],
  [
    'public: create without the scope',
    { method: 'POST', path: '/v1/verification-sessions', headers: json, body: '{}', as: readOnly },
    403,
  ],
  [
    'public: create with broken JSON',
    { method: 'POST', path: '/v1/verification-sessions', headers: json, body: '{', as: identity },
    400,
  ],
  [
    'public: create without a project',
    { method: 'POST', path: '/v1/verification-sessions', headers: json, body: '{}', as: identity },
    422,
  ],
  [
    'public: create',
    {
      method: 'POST',
      path: '/v1/verification-sessions',
      headers: json,
      body: `{"project_id":"${newId('project')}","external_ref":"r-1"}`,
      as: identity,
    },
    201,
  ],
  [
    'public: create replayed',
    {
      method: 'POST',
      path: '/v1/verification-sessions',
      headers: { ...json, 'idempotency-key': 'replayed' },
      body: `{"project_id":"${newId('project')}"}`,
      as: identity,
    },
    201,
  ],
  [
    'public: a bad Idempotency-Key',
    {
      method: 'POST',
      path: '/v1/verification-sessions',
      headers: { ...json, 'idempotency-key': 'x'.repeat(300) },
      body: `{"project_id":"${newId('project')}"}`,
      as: identity,
    },
    422,
  ],
];

function withSlash(sent: Sent): Sent {
  const [path, query] = sent.path.split('?');
  return { ...sent, path: `${path}/${query === undefined ? '' : `?${query}`}` };
}

describe('the fast routes answer as express does', () => {
  it.each(cases)('%s', async (_name, sent, status) => {
    const fast = await send(sent);
    const slow = await send(withSlash(sent));
    expect(fast.byExpress).toBe(false);
    expect(slow.byExpress).toBe(true);
    expect(fast.status).toBe(status);
    expect({ ...fast, byExpress: undefined }).toEqual({ ...slow, byExpress: undefined });
  });

  it('labels both the same, by the contract path', async () => {
    const series = async () =>
      (await metrics.registry.getSingleMetric('http_request_duration_seconds')!.get()).values
        .filter((value) => (value as { metricName?: string }).metricName === 'http_request_duration_seconds_count')
        .map((value) => `${value.labels.method} ${value.labels.route} ${value.labels.status} ${value.value}`)
        .sort();
    const seen = await series();
    // Every case ran twice (fast, then express) under one series: every count is even.
    for (const line of seen) expect(Number(line.split(' ').pop()) % 2).toBe(0);
    expect(seen).toContain('POST /internal/sessions/activity 401 4');
    expect(seen).toContain('GET /v1/verification-sessions/{id} 200 2');
    expect(seen).toContain('POST /v1/verification-sessions 201 4');
    expect(seen.some((line) => line.includes('unmatched'))).toBe(false);
  });

  it('logs each request once, a failure with its error', () => {
    const completed = logLines.filter((line) => line.includes('"request completed"'));
    expect(completed.length).toBe(cases.length * 2);
    expect(logLines.filter((line) => line.includes('"unhandled error"') && line.includes('the store failed'))).toHaveLength(2);
  });
});

describe('what the fast path leaves to express', () => {
  it.each([
    ['a body that is not JSON', { 'content-type': 'text/plain' }, '{}', 415],
    ['JSON in another charset', { 'content-type': 'application/json; charset=latin1' }, '{}', 415],
    ['a body declared bigger than the limit', { 'content-type': 'application/json' }, ' '.repeat(256 * 1024 + 1), 413],
    ['a JSON subtype', { 'content-type': 'application/merge-patch+json' }, '{"session_ids":"x"}', 422],
  ])('%s', async (_name, headers, body, status) => {
    const answer = await send({ method: 'POST', path: activity, headers: { ...internal, ...headers }, body });
    expect(answer.byExpress).toBe(true);
    expect(answer.status).toBe(status);
  });

  it('shares one nonce window with it: a signed request is good once, whichever path it takes', async () => {
    const signedFor = (requestId: string) => ({
      ...identityHeaders(identityContext(identity), { method: 'GET', url: oneSession, requestId }, TOKEN),
      [INTERNAL_HEADERS.requestId]: requestId,
    });
    // A GET with a JSON body is express's.
    const throughExpress = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const request = http.request(
          `${base}${oneSession}`,
          { method: 'GET', headers: { ...headers, ...json, 'content-length': '2' } },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on('error', reject);
        request.end('{}');
      });
    const first = signedFor('req_nonce_fast_first');
    expect(await send({ method: 'GET', path: oneSession, headers: first })).toMatchObject({ status: 200, byExpress: false });
    const calls = handle.mock.calls.length;
    expect(await throughExpress(first)).toBe(401);
    expect(handle.mock.calls.length).toBe(calls + 1);

    const second = signedFor('req_nonce_express_first');
    expect(await throughExpress(second)).toBe(200);
    expect(await send({ method: 'GET', path: oneSession, headers: second })).toMatchObject({
      status: 401,
      byExpress: false,
      body: { detail: 'The authorization context was already used.' },
    });
  });

  it('leaves a method the path has no route for to express', async () => {
    const answer = await send({ method: 'POST', path: oneSession, headers: json, body: '{}', as: identity });
    expect(answer).toMatchObject({ status: 404, byExpress: true });
  });
});

describe('the fast path under one route', () => {
  it('does not take HEAD or a percent-escaped segment', async () => {
    const head = await send({ method: 'HEAD', path: oneSession, as: identity });
    const escaped = await send({
      method: 'GET',
      path: `/v1/verification-sessions/${sessionId.replace('vs_', 'vs%5F')}`,
      as: identity,
    });
    expect(head.byExpress).toBe(true);
    expect(escaped.byExpress).toBe(true);
    expect(escaped.status).toBe(200);
  });

  it('answers a problem as problem+json with the request id', async () => {
    const answer = await fetch(`${base}${activity}`, {
      method: 'POST',
      headers: { ...json, 'x-request-id': 'req_given' },
      body: '{',
    });
    expect(answer.headers.get('x-request-id')).toBe('req_given');
    expect(await answer.json()).toMatchObject({ status: 400, request_id: 'req_given' });
  });
});
