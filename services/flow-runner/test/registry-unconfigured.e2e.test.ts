import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT_DIR, buildTenant, testEnv } from '@idv/testkit';
import { anotherPhotoOf, buildConfig, createSession, eventually, getSession } from './fixtures';
import { Person, type Page } from './person';
import { startPrivateStack } from './providers';

/**
 * A live document step with `registryCheck: true` on a flow-runner that has no registry configured
 * (no REGISTRY_URL): through the real stack, the step is rejected `document_registry_unavailable` at
 * once (not after the retry window) and the operator finds an error line naming the missing setting.
 */
const SAMPLES = path.join(__dirname, '..', 'assets', 'samples');
let privateStack: Awaited<ReturnType<typeof startPrivateStack>>;

beforeAll(async () => {
  privateStack = await startPrivateStack({
    database: 'idv_test_no_registry',
    env: { TIME_SCALE: '0.05', LOG_LEVEL: 'info' },
    // Node leaves an undefined variable out of the child's environment: this flow-runner has no registry.
    serviceEnv: { 'flow-runner': { REGISTRY_URL: undefined, REGISTRY_TOKEN: undefined } as unknown as Record<string, string> },
  });
}, 120_000);

afterAll(() => privateStack?.stop());

const flowUrl = () => privateStack.stack.url('flow-runner');

test('when a live step asks for the registry check and no registry is configured, then the session is rejected document_registry_unavailable and an error is logged', async () => {
  const tenant = await buildTenant({
    config: buildConfig([{ id: 'doc', type: 'document_ar', documents: ['passport'], registryCheck: true }], {
      documentData: true,
    }),
    modes: ['live'],
    tokens: 1,
  });
  const session = await createSession(tenant.liveKey, tenant.project.id);
  const person = new Person(flowUrl());
  await person.get(session.url);
  await person.submit({ action: 'accept' });
  for (const side of ['front', 'front_angle']) {
    const hops: Page[] = [];
    const bytes = await anotherPhotoOf(readFileSync(path.join(SAMPLES, `passport-ok-${side}.jpg`)));
    await person.submitFiles({ side, action: 'upload' }, [{ field: 'capture', bytes, filename: 'foto.jpg' }], { hops });
    expect(hops[0]!.status).toBe(303);
    await eventually(async () => {
      const next = await person.get(`/s/${session.id}`);
      return next.text.includes('http-equiv="refresh"') ? undefined : next;
    }, 30_000);
  }

  const resolved = await eventually(async () => {
    const current = await getSession(tenant.liveKey, session.id);
    return current.status === 'in_progress' ? undefined : current;
  }, 30_000);

  expect(resolved.status).toBe('rejected');
  expect(resolved.result.reason_codes).toEqual(['document_registry_unavailable']);
  expect(resolved.result).not.toHaveProperty('document');
  const log = readFileSync(path.join(ROOT_DIR, '.run', 'logs', `${testEnv().namespace}-flow-runner.log`), 'utf8');
  const lines = log.split('\n').filter((line) => line.includes('no registry is configured'));
  expect(lines.length).toBeGreaterThanOrEqual(1);
  expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'error', session_id: session.id });
  expect(log).toContain('no registry configured (REGISTRY_URL)');
});
