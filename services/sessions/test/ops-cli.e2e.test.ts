import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ROOT_DIR, SIMPLE_CONFIG, api, buildAccount, testEnv } from '@idv/testkit';
import { createSession } from './helpers';

const exec = promisify(execFile);

/** Runs `pnpm ops <args> --json` (the built CLI) against the test stack; returns its one JSON object. */
async function opsCli(...args: string[]): Promise<any> {
  const env = testEnv();
  const { stdout } = await exec(process.execPath, [path.join(ROOT_DIR, 'packages/ops/dist/cli.js'), ...args, '--json'], {
    env: { ...process.env, KEYS_URL: env.keysUrl, SESSIONS_URL: env.sessionsUrl, INTERNAL_TOKEN: env.internalToken },
  });
  return JSON.parse(stdout);
}

test('when an operator creates a project, publishes a config and credits tokens with the CLI, then live sessions can be created', async () => {
  const account = await buildAccount();
  const project = await opsCli('project:create', '--account', account.id, '--name', 'Onboarding');
  expect(project.id).toMatch(/^prj_/);
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'idv-config-')), 'flow.json');
  writeFileSync(file, JSON.stringify(SIMPLE_CONFIG));
  expect(await opsCli('config:publish', '--project', project.id, '--mode', 'live', '--file', file)).toEqual({
    id: 'cfg_00000001',
    project_id: project.id,
    mode: 'live',
  });
  expect(await opsCli('balance:credit', '--account', account.id, '--tokens', '2')).toEqual({
    account_id: account.id,
    balance: 2,
  });
  const key = await opsCli('key:create', '--account', account.id, '--mode', 'live', '--name', 'cli');
  const created = await createSession(key.secret, project.id);
  expect(created.status).toBe(201);
  expect(created.body.config_version).toBe('cfg_00000001');
});

test('when an operator runs demo, then both modes are published and a live session debits the demo balance', async () => {
  const demo = await opsCli('demo');
  expect(demo.project_id).toMatch(/^prj_/);
  expect(demo.balance).toBeGreaterThan(0);
  for (const key of [demo.test_key.secret, demo.live_key.secret]) {
    expect((await createSession(key, demo.project_id)).status).toBe(201);
  }
  const usage = await api('GET', `/v1/usage?month=${new Date().toISOString().slice(0, 7)}`, { key: demo.test_key.secret });
  expect(usage.body.tokens_debited).toBe(1);
});
