#!/usr/bin/env node
import { readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_PORTS, ROOT_DIR, Stack } from './stack';

const STATE_FILE = path.join(ROOT_DIR, '.run', 'stack.json');

/** Knobs the local stack passes from the caller's environment to every service (docs/configuration.md). */
const PASS_THROUGH = [
  'TIME_SCALE',
  'WEBHOOKS_ALLOW_LOCAL_TARGETS',
  'WEBHOOKS_SECRET_KEY',
  'RATE_LIMIT_PER_SECOND',
  'RATE_LIMIT_BURST',
  'LOG_LEVEL',
  'INTERNAL_TOKEN',
  'PUBLIC_BASE_URL',
  'FLOW_BASE_URL',
  'DASHBOARD_BASE_URL',
  'DASHBOARD_SECRET',
  'CORS_ORIGINS',
  'SMTP_HOST',
  'SMTP_PORT',
  'SMTP_SECURE',
  'SMTP_USER',
  'SMTP_PASSWORD',
  'SMTP_FROM',
  'WHATSAPP_API_URL',
  'WHATSAPP_PHONE_NUMBER_ID',
  'WHATSAPP_TOKEN',
  'WHATSAPP_TEMPLATE_NAME',
  'WHATSAPP_TEMPLATE_LANGUAGE',
  'KEYS_URL',
  'SESSIONS_URL',
  'WEBHOOKS_URL',
];

function down(): void {
  let state: { pids: number[] };
  try {
    state = JSON.parse(readFileSync(STATE_FILE, 'utf8')) as { pids: number[] };
  } catch {
    process.stdout.write('no local stack is recorded as running\n');
    return;
  }
  for (const pid of state.pids) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  rmSync(STATE_FILE, { force: true });
  process.stdout.write(`stopped ${state.pids.length} services\n`);
}

async function up(): Promise<void> {
  down();
  const env: Record<string, string> = {
    NODE_ENV: 'development',
    TIME_SCALE: '1',
    WEBHOOKS_ALLOW_LOCAL_TARGETS: 'true',
    INTERNAL_TOKEN: 'local-development-internal-token',
  };
  for (const name of PASS_THROUGH) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  const stack = await Stack.start({
    database: process.env.IDV_DATABASE ?? 'idv',
    namespace: 'idv',
    ports: DEFAULT_PORTS,
    env: {
      ...env,
      PUBLIC_BASE_URL: env.PUBLIC_BASE_URL ?? `http://localhost:${DEFAULT_PORTS.gateway}`,
      FLOW_BASE_URL: env.FLOW_BASE_URL ?? `http://localhost:${DEFAULT_PORTS['flow-runner']}`,
      DASHBOARD_BASE_URL: env.DASHBOARD_BASE_URL ?? `http://localhost:${DEFAULT_PORTS.dashboard}`,
      CORS_ORIGINS: env.CORS_ORIGINS ?? `http://localhost:${DEFAULT_PORTS.dashboard},http://127.0.0.1:${DEFAULT_PORTS.dashboard}`,
    },
    detached: true,
  });
  mkdirSync(path.dirname(STATE_FILE), { recursive: true });
  const pids = [...stack.running.values()].map((s) => s.process.pid).filter((p): p is number => p !== undefined);
  writeFileSync(
    STATE_FILE,
    JSON.stringify({ pids, urls: Object.fromEntries([...stack.running].map(([n, s]) => [n, s.url])) }, null, 2),
  );
  for (const [name, service] of stack.running)
    process.stdout.write(`${name.padEnd(12)} ${service.url}  (log: ${path.relative(ROOT_DIR, service.logFile)})\n`);
}

const command = process.argv[2];
if (command === 'up') {
  up().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`stack: ${(error as Error).message}\n`);
      process.exit(1);
    },
  );
} else if (command === 'down') {
  down();
} else {
  process.stderr.write('usage: stack up|down\n');
  process.exit(2);
}
