import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { z, type RouteContract } from '@idv/contracts';
import { createLogger, createMetrics, createServiceApp, mountRoutes, route } from '../src';

/** A contract of the shape the tables hold, small enough to read in one look. */
const widget = {
  operationId: 'putWidget',
  method: 'put',
  path: '/widgets/{id}.json',
  service: 'test',
  params: z.object({ id: z.string().regex(/^w_[0-9]+$/) }),
  query: z.object({ verbose: z.enum(['yes', 'no']).default('no') }),
  headers: z.object({ 'x-label': z.string().max(3).optional() }),
  body: z.strictObject({ size: z.number().int().positive() }),
  responses: { 200: { description: 'The widget', schema: z.object({ id: z.string(), size: z.number() }) } },
} as const satisfies RouteContract;

const gone = {
  operationId: 'deleteWidget',
  method: 'delete',
  path: '/widgets/{id}',
  service: 'test',
  params: widget.params,
  responses: { 204: { description: 'Deleted' } },
} as const satisfies RouteContract;

let server: Server;
let base: string;
const seen: unknown[] = [];

beforeAll(async () => {
  const routes = [
    route(widget, ({ params, query, headers, body }, prefix: string) => {
      seen.push({ params, query, headers, body });
      return { status: 200, body: { id: `${prefix}${params.id}`, size: body.size } };
    }),
    route(gone, () => ({ status: 204 }), { paramsMismatch: { code: 'not_found', detail: 'No such widget.' } }),
  ];
  const app = createServiceApp({
    logger: createLogger({ service: 'kit-route-test', level: 'silent' }),
    metrics: createMetrics('kit-route-test'),
    readiness: {},
    routes: (express) => mountRoutes(express, routes, 'id:'),
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

const put = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('route(contract, handler)', () => {
  it('when a request matches its contract, then the handler gets it parsed (defaults applied) and its reply is sent as JSON', async () => {
    seen.length = 0;
    const response = await put('/widgets/w_7.json', { size: 3 }, { 'x-label': 'abc' });
    expect([response.status, await response.json()]).toEqual([200, { id: 'id:w_7', size: 3 }]);
    expect(seen).toEqual([{ params: { id: 'w_7' }, query: { verbose: 'no' }, headers: { 'x-label': 'abc' }, body: { size: 3 } }]);
  });

  it('when params, query and body are all wrong, then 422 validation_failed names the first part checked (params), never the handler', async () => {
    seen.length = 0;
    const response = await put('/widgets/x_7.json?verbose=maybe', { size: -1 });
    const problem = (await response.json()) as { code: string; errors: { path: string }[] };
    expect([response.status, problem.code, problem.errors.map((e) => e.path)]).toEqual([422, 'validation_failed', ['params.id']]);
    expect(seen).toEqual([]);
  });

  it('when the body has a field the contract does not know, then 422 lists it', async () => {
    const response = await put('/widgets/w_1.json', { size: 1, colour: 'red' });
    const problem = (await response.json()) as { errors: { path: string; message: string }[] };
    expect([response.status, problem.errors]).toEqual([422, [{ path: '(root)', message: 'unknown field(s): colour' }]]);
  });

  it('when a declared header is sent as UTF-8, then it is checked in the characters sent, not in Latin-1 bytes', async () => {
    // Three characters, six bytes: read as Latin-1 they would be six characters and fail `max(3)`.
    const ok = await put('/widgets/w_2.json', { size: 1 }, { 'x-label': Buffer.from('ñáé', 'utf8').toString('latin1') });
    expect(ok.status).toBe(200);
    const long = await put('/widgets/w_2.json', { size: 1 }, { 'x-label': 'abcd' });
    expect(((await long.json()) as { errors: { path: string }[] }).errors[0]!.path).toBe('headers.x-label');
  });

  it('when a route maps a params mismatch to another problem, then that problem is the answer; a 204 reply has no body', async () => {
    const missing = await fetch(`${base}/widgets/nope`, { method: 'DELETE' });
    expect([missing.status, ((await missing.json()) as { code: string }).code]).toEqual([404, 'not_found']);
    const deleted = await fetch(`${base}/widgets/w_3`, { method: 'DELETE' });
    expect([deleted.status, await deleted.text()]).toEqual([204, '']);
  });
});
