import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { STACK_ENV_NAMES } from './env';
import { waitFor } from './wait';

export const SERVICE_NAMES = ['keys', 'sessions', 'webhooks', 'flow-runner', 'gateway', 'dashboard'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export const ROOT_DIR = path.resolve(__dirname, '..', '..', '..');

/** Ports of the local stack (`scripts/up.sh`); test stacks take free ports instead. */
export const DEFAULT_PORTS: Record<ServiceName, number> = {
  gateway: 8080,
  keys: 8081,
  sessions: 8082,
  'flow-runner': 8083,
  webhooks: 8084,
  dashboard: 8085,
};

export interface InfraUrls {
  postgresAdminUrl: string;
  amqpUrl: string;
  redisUrl: string;
}

export function infraFromEnv(env: NodeJS.ProcessEnv = process.env): InfraUrls {
  return {
    postgresAdminUrl: env.POSTGRES_ADMIN_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres',
    amqpUrl: env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
    redisUrl: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  };
}

export interface StackOptions {
  /**
   * Database name (created when missing); each service keeps its own schema inside it. Unless the
   * stack is `detached` (the local stack), the name gets the stack's namespace as a suffix and the
   * database is dropped on stop: two stacks never share tables, so one stack's outbox relay can never
   * publish another stack's events.
   */
  database?: string;
  /** Broker namespace; a unique one isolates this stack's exchanges and queues. */
  namespace?: string;
  services?: readonly ServiceName[];
  env?: Record<string, string>;
  serviceEnv?: Partial<Record<ServiceName, Record<string, string>>>;
  ports?: Partial<Record<ServiceName, number>>;
  logDir?: string;
  /** Keep services running after this process exits (the local stack). */
  detached?: boolean;
  readyTimeoutMs?: number;
}

export interface RunningService {
  name: ServiceName;
  url: string;
  port: number;
  process: ChildProcess;
  logFile: string;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export async function ensureDatabase(adminUrl: string, database: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) {
      await client.query(`CREATE DATABASE "${database.replace(/"/g, '')}"`).catch((error: { code?: string }) => {
        if (error.code !== '42P04') throw error; // created concurrently by another stack
      });
    }
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function dropDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${database.replace(/"/g, '')}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

async function waitReady(service: RunningService, timeoutMs: number): Promise<void> {
  const state: { exited: number | null } = { exited: null };
  // 'close' comes after the process's output is flushed, so the log tail below is complete.
  service.process.once('close', (code) => {
    state.exited = code ?? -1;
  });
  const outcome = await waitFor(
    async () => {
      if (state.exited !== null) return 'exited';
      const response = await fetch(`${service.url}/readyz`); // throws while nothing listens yet
      return response.status === 200 ? 'ready' : undefined;
    },
    timeoutMs,
    100,
    `${service.name} ready`,
  ).catch(() => 'timeout');
  if (outcome === 'ready') return;
  const tail = existsSync(service.logFile) ? readFileSync(service.logFile, 'utf8').split('\n').slice(-15).join('\n') : '';
  throw new Error(
    `${service.name} did not become ready (${state.exited !== null ? `exited ${state.exited}` : 'timeout'}). Log tail:\n${tail}`,
  );
}

/**
 * A running set of the project's services (built `dist/main.js`), wired to the machine's PostgreSQL,
 * RabbitMQ and Redis. Tests get real HTTP between real processes.
 */
export class Stack {
  readonly running = new Map<ServiceName, RunningService>();
  readonly extras: RunningService[] = [];
  readonly env: Record<string, string>;
  private ownedDatabase: string | null = null;

  private constructor(
    private readonly options: StackOptions,
    env: Record<string, string>,
    private readonly ports: Record<ServiceName, number>,
  ) {
    this.env = env;
  }

  static async start(options: StackOptions = {}): Promise<Stack> {
    const infra = infraFromEnv();
    const namespace = options.namespace ?? `t${randomBytes(4).toString('hex')}`;
    const database = options.detached ? (options.database ?? 'idv') : `${options.database ?? 'idv_test'}_${namespace}`;
    const databaseUrl = await ensureDatabase(infra.postgresAdminUrl, database);
    const services = (options.services ?? SERVICE_NAMES).filter((name) => existsSync(mainOf(name)));
    const ports = { ...DEFAULT_PORTS };
    for (const name of SERVICE_NAMES) ports[name] = options.ports?.[name] ?? (await freePort());
    const url = (name: ServiceName) => `http://127.0.0.1:${ports[name]}`;
    const env: Record<string, string> = {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      INTERNAL_TOKEN: `internal-${randomBytes(16).toString('hex')}`,
      TIME_SCALE: '0.05',
      DATABASE_URL: databaseUrl,
      AMQP_URL: infra.amqpUrl,
      REDIS_URL: infra.redisUrl,
      BROKER_NAMESPACE: namespace,
      WEBHOOKS_ALLOW_LOCAL_TARGETS: 'true',
      // Tests stand in for a proxy: a test gives itself a client address of its own with
      // X-Forwarded-For, so per-address throttles of one test never meet another test's traffic.
      TRUSTED_PROXIES: '127.0.0.1,::1',
      // A fixed test-only key encrypting webhook signing secrets at rest, stable across stack restarts.
      WEBHOOKS_SECRET_KEY: Buffer.alloc(32, 'idv-test-webhooks').toString('base64'),
      KEYS_URL: url('keys'),
      SESSIONS_URL: url('sessions'),
      WEBHOOKS_URL: url('webhooks'),
      FLOW_URL: url('flow-runner'),
      GATEWAY_URL: url('gateway'),
      DASHBOARD_URL: url('dashboard'),
      // CORS allows exactly the dashboard's origins: a production-like one the tests use, and this stack's.
      CORS_ORIGINS: `https://dashboard.idv.example,${url('dashboard')}`,
      DASHBOARD_BASE_URL: url('dashboard'),
      // Plain HTTP on 127.0.0.1: a browser drops `Secure` and `__Host-` cookies there.
      SECURE_COOKIES: 'false',
      PUBLIC_BASE_URL: url('gateway'),
      FLOW_BASE_URL: url('flow-runner'),
      // Flow-runner providers: nothing listens there; test-mode sessions send nothing, and tests that
      // need real delivery start their own stack pointed at their own SMTP server and WhatsApp stand-in.
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: '2525',
      SMTP_SECURE: 'false',
      SMTP_FROM: 'IDV test <no-reply@idv.test>',
      WHATSAPP_API_URL: 'http://127.0.0.1:9/v21.0',
      WHATSAPP_PHONE_NUMBER_ID: '000000000000000',
      WHATSAPP_TOKEN: 'test-whatsapp-token',
      // The national registry likewise: nothing listens there (a registryCheck step waits and retries);
      // registry tests start their own stack pointed at their stand-in.
      REGISTRY_URL: 'http://127.0.0.1:9',
      REGISTRY_TOKEN: 'test-registry-token',
      REGISTRY_TIMEOUT_MS: '2000',
      ...options.env,
    };
    const stack = new Stack(options, env, ports);
    stack.ownedDatabase = options.detached ? null : database;
    try {
      await Promise.all(services.map((name) => stack.startService(name)));
    } catch (error) {
      await stack.stop();
      throw error;
    }
    return stack;
  }

  url(name: ServiceName): string {
    return `http://127.0.0.1:${this.ports[name]}`;
  }

  get gatewayUrl(): string {
    return this.url('gateway');
  }

  /**
   * Points the process environment at this stack, so the testkit's helpers (api, ops, buildTenant)
   * use it; returns the function that restores the previous values.
   */
  exportEnv(): () => void {
    const saved = Object.fromEntries(STACK_ENV_NAMES.map((name) => [name, process.env[name]]));
    for (const name of STACK_ENV_NAMES) {
      const value = this.env[name];
      if (value !== undefined) process.env[name] = value;
    }
    return () => {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    };
  }

  private spawnService(name: ServiceName, port: number, envOverrides: Record<string, string>, label: string): RunningService {
    const logDir = this.options.logDir ?? path.join(ROOT_DIR, '.run', 'logs');
    const logFile = path.join(logDir, `${this.env.BROKER_NAMESPACE}-${label}.log`);
    const env = { ...process.env, ...this.env, ...this.options.serviceEnv?.[name], ...envOverrides, PORT: String(port) };
    const child = spawnLogged(name, env, logFile, this.options.detached ?? false);
    return { name, url: `http://127.0.0.1:${port}`, port, process: child, logFile };
  }

  async startService(name: ServiceName, envOverrides: Record<string, string> = {}): Promise<RunningService> {
    const service = this.spawnService(name, this.ports[name], envOverrides, name);
    this.running.set(name, service);
    await waitReady(service, this.options.readyTimeoutMs ?? 30_000);
    return service;
  }

  /** Another replica of a service on its own port (e.g. a second gateway). */
  async startReplica(name: ServiceName, envOverrides: Record<string, string> = {}): Promise<RunningService> {
    const port = await freePort();
    const service = this.spawnService(name, port, envOverrides, `${name}-${port}`);
    this.extras.push(service);
    await waitReady(service, this.options.readyTimeoutMs ?? 30_000);
    return service;
  }

  /** Sends a signal and waits for the process to exit. */
  async kill(name: ServiceName, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    const service = this.running.get(name);
    if (!service) return null;
    this.running.delete(name);
    return stopProcess(service.process, signal);
  }

  async restart(name: ServiceName, signal: NodeJS.Signals = 'SIGTERM'): Promise<RunningService> {
    await this.kill(name, signal);
    return this.startService(name);
  }

  async stop(): Promise<void> {
    const all = [...this.extras, ...this.running.values()];
    this.running.clear();
    this.extras.length = 0;
    await Promise.all(all.map((service) => stopProcess(service.process, 'SIGTERM')));
    if (this.ownedDatabase) {
      await dropDatabase(infraFromEnv().postgresAdminUrl, this.ownedDatabase).catch(() => undefined);
      this.ownedDatabase = null;
    }
  }
}

/**
 * Starts a service with its output appended straight to its log file (not piped through this
 * process), so a detached service keeps logging after the process that started it is gone.
 */
function spawnLogged(name: ServiceName, env: NodeJS.ProcessEnv, logFile: string, detached: boolean): ChildProcess {
  mkdirSync(path.dirname(logFile), { recursive: true });
  const fd = openSync(logFile, 'a');
  try {
    // IDV_SERVICE_NODE_ARGS passes node flags to every service, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
    const nodeArgs = (process.env.IDV_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const child = spawn(process.execPath, [...nodeArgs, mainOf(name)], {
      cwd: path.dirname(path.dirname(mainOf(name))),
      // The document readers' process runs with glibc's arenas capped, as deployed (deploy/k8s/base/flow-runner.yaml).
      env: name === 'flow-runner' ? { MALLOC_ARENA_MAX: '2', ...env } : env,
      stdio: ['ignore', fd, fd],
      detached,
    });
    if (detached) child.unref();
    return child;
  } finally {
    closeSync(fd);
  }
}

function mainOf(name: ServiceName): string {
  return path.join(ROOT_DIR, 'services', name, 'dist', 'main.js');
}

export function stopProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', (code) => {
      clearTimeout(force);
      resolve(code);
    });
    child.kill(signal);
  });
}

/**
 * Starts one more process of a service of the stack described by the environment (the one jest's
 * global setup started), e.g. a second gateway replica, with optional overrides.
 */
export async function startServiceFromEnv(
  name: ServiceName,
  overrides: Record<string, string> = {},
): Promise<RunningService & { stop(signal?: NodeJS.Signals): Promise<number | null> }> {
  const port = await freePort();
  const logFile = path.join(ROOT_DIR, '.run', 'logs', `${process.env.BROKER_NAMESPACE ?? 'adhoc'}-${name}-${port}.log`);
  const child = spawnLogged(name, { ...process.env, ...overrides, PORT: String(port) }, logFile, false);
  const service: RunningService = { name, url: `http://127.0.0.1:${port}`, port, process: child, logFile };
  try {
    await waitReady(service, 30_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return { ...service, stop: (signal: NodeJS.Signals = 'SIGTERM') => stopProcess(child, signal) };
}

export function serviceMain(name: ServiceName): string {
  return mainOf(name);
}
