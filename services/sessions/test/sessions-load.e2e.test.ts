import { api, buildTenant, ops, type Stack } from '@idv/testkit';
import { createSession, startPrivateStack } from './helpers';

/**
 * Concurrency through the gateway on a private stack whose rate limit is raised: the default 20/s
 * (burst 40) per account would answer 429 before the sessions service is even reached.
 */
let stack: Stack;
let restoreEnv: () => void;

beforeAll(async () => {
  stack = await startPrivateStack({
    database: 'idv_test_sessions_load',
    env: { RATE_LIMIT_PER_SECOND: '100000', RATE_LIMIT_BURST: '100000' },
  });
  restoreEnv = stack.exportEnv();
}, 60_000);

afterAll(async () => {
  restoreEnv?.();
  await stack?.stop();
});

test('when 50 live creates race with a balance of 10, then exactly 10 succeed and 40 get 402 insufficient_balance', async () => {
  const { account, project, liveKey } = await buildTenant({ tokens: 10 });
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) => createSession(liveKey, project.id, { external_ref: `r${i}` })),
  );
  const statuses = results.map((r) => r.status);
  expect(statuses.filter((s) => s === 201)).toHaveLength(10);
  expect(statuses.filter((s) => s === 402)).toHaveLength(40);
  expect(results.filter((r) => r.status === 402).every((r) => r.body.code === 'insufficient_balance')).toBe(true);
  expect((await ops().balance(account.id)).balance).toBe(0);
  const listed = await api('GET', '/v1/verification-sessions?limit=100', { key: liveKey });
  expect(listed.body.data).toHaveLength(10);
});

test('when paging through 250 sessions while new ones are inserted between pages, then every original session is seen exactly once', async () => {
  const { project, testKey } = await buildTenant();
  const original: string[] = [];
  for (let batch = 0; batch < 10; batch++) {
    const created = await Promise.all(Array.from({ length: 25 }, () => createSession(testKey, project.id)));
    for (const res of created) {
      expect(res.status).toBe(201);
      original.push(res.body.id);
    }
  }
  const seen: string[] = [];
  const createdAt: string[] = [];
  const inserted: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const res = await api('GET', `/v1/verification-sessions?limit=30${cursor ? `&cursor=${cursor}` : ''}`, { key: testKey });
    expect(res.status).toBe(200);
    seen.push(...res.body.data.map((s: { id: string }) => s.id));
    createdAt.push(...res.body.data.map((s: { created_at: string }) => s.created_at));
    cursor = res.body.next_cursor;
    pages += 1;
    // Concurrent inserts between pages: newer than every cursor, so never part of the rest of the walk.
    const more = await Promise.all(Array.from({ length: 3 }, () => createSession(testKey, project.id)));
    inserted.push(...more.map((r) => r.body.id));
  } while (cursor);
  // The first page may include nothing inserted later; the remaining pages never do.
  expect(seen).toHaveLength(250);
  expect(new Set(seen).size).toBe(250);
  expect([...seen].sort()).toEqual([...original].sort());
  expect(seen.some((id) => inserted.includes(id))).toBe(false);
  expect(pages).toBe(9);
  // Newest first.
  expect(createdAt).toEqual([...createdAt].sort().reverse());
});

test('when a month holds more sessions than one export batch, then the streamed CSV has every session exactly once, oldest first', async () => {
  const { project, testKey } = await buildTenant();
  const ids: string[] = [];
  for (let batch = 0; batch < 11; batch++) {
    const created = await Promise.all(Array.from({ length: 50 }, () => createSession(testKey, project.id)));
    expect(created.every((r) => r.status === 201)).toBe(true);
    ids.push(...created.map((r) => r.body.id as string));
  }
  const month = new Date().toISOString().slice(0, 7);
  const res = await api('GET', `/v1/usage/sessions.csv?month=${month}`, { key: testKey });
  expect(res.status).toBe(200);
  const rows = res.text.trim().split('\r\n').slice(1);
  expect(rows).toHaveLength(550);
  const exported = rows.map((line) => line.split(',')[0]);
  expect(new Set(exported).size).toBe(550);
  expect([...exported].sort()).toEqual([...ids].sort());
  const createdAt = rows.map((line) => line.split(',')[6]!);
  expect(createdAt).toEqual([...createdAt].sort());
});
