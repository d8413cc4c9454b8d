import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, openSync, closeSync, readdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, waitFor } from '../../src';

const run = promisify(execFile);

/**
 * PostgreSQL, RabbitMQ and Redis of the chaos suite's own: started in a temporary directory on free loopback
 * ports, so that restarting them never disturbs the machine's shared instances the other test files use.
 */

function pgBin(name: string): string {
  for (const dir of ['/usr/local/bin', '/usr/lib/postgresql/15/bin']) {
    if (existsSync(path.join(dir, name))) return path.join(dir, name);
  }
  const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').sort().reverse() : [];
  for (const version of versions) {
    const candidate = path.join('/usr/lib/postgresql', version, 'bin', name);
    if (existsSync(candidate)) return candidate;
  }
  return name; // on PATH
}

/** PostgreSQL refuses to run as root: as root, its commands run as the `postgres` user. */
function asPostgres(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** An AMQP server answers the protocol header with its own (a port can be open before the broker accepts). */
function amqpAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(Buffer.from('AMQP\x00\x00\x09\x01', 'latin1')));
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('data', () => done(true));
    socket.once('error', () => done(false));
    socket.setTimeout(1000, () => done(false));
  });
}

export class PrivatePostgres {
  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  get adminUrl(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  private get serverOptions(): string {
    return `-p ${this.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${this.dir} -c max_connections=200`;
  }

  private async ctl(...args: string[]): Promise<void> {
    const [command, argv] = asPostgres(pgBin('pg_ctl'), ['-D', path.join(this.dir, 'data'), ...args]);
    await run(command, argv, { timeout: 60_000 });
  }

  static async start(root: string): Promise<PrivatePostgres> {
    const dir = path.join(root, 'postgres');
    mkdirSync(dir, { recursive: true });
    if (process.getuid?.() === 0) chownSync(dir, ...postgresIds());
    const [command, argv] = asPostgres(pgBin('initdb'), [
      '-D',
      path.join(dir, 'data'),
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '--no-sync',
    ]);
    await run(command, argv, { timeout: 60_000 });
    const server = new PrivatePostgres(dir, await freePort());
    await server.ctl('-l', path.join(dir, 'server.log'), '-w', '-t', '60', '-o', server.serverOptions, 'start');
    return server;
  }

  /** A crash and restart (`-m immediate`: no checkpoint, recovery from the WAL on start). */
  async restartImmediate(): Promise<void> {
    await this.ctl(
      '-l',
      path.join(this.dir, 'server.log'),
      '-m',
      'immediate',
      '-w',
      '-t',
      '60',
      '-o',
      this.serverOptions,
      'restart',
    );
  }

  async stop(): Promise<void> {
    await this.ctl('-m', 'immediate', '-w', 'stop').catch(() => undefined);
  }
}

function postgresIds(): [number, number] {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
  return [id('-u'), id('-g')];
}

/** A process of ours with its output appended to a log file; killed with its whole process group. */
function spawnGroup(command: string, args: string[], env: NodeJS.ProcessEnv, logFile: string): ChildProcess {
  const fd = openSync(logFile, 'a');
  try {
    return spawn(command, args, { env, stdio: ['ignore', fd, fd], detached: true });
  } finally {
    closeSync(fd);
  }
}

function killGroup(child: ChildProcess | null, signal: NodeJS.Signals): Promise<void> {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    try {
      process.kill(-child.pid!, signal);
    } catch {
      resolve();
    }
  });
}

export class PrivateRedis {
  private child: ChildProcess | null = null;
  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(root: string): Promise<PrivateRedis> {
    const dir = path.join(root, 'redis');
    mkdirSync(dir, { recursive: true });
    const server = new PrivateRedis(dir, await freePort());
    await server.spawn();
    return server;
  }

  private async spawn(): Promise<void> {
    this.child = spawnGroup(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.dir],
      process.env,
      path.join(this.dir, 'server.log'),
    );
    await waitFor(() => portOpen(this.port), 20_000, 50, 'redis listening');
  }

  /** Killed with SIGKILL and started again: empty, as Redis holds nothing that must survive. */
  async restartHard(): Promise<void> {
    await killGroup(this.child, 'SIGKILL');
    await this.spawn();
  }

  async stop(): Promise<void> {
    await killGroup(this.child, 'SIGKILL');
  }
}

function rabbitmqServer(): string {
  const packaged = '/usr/lib/rabbitmq/bin/rabbitmq-server';
  return existsSync(packaged) ? packaged : 'rabbitmq-server';
}

/**
 * A second RabbitMQ node on this machine: its own node name, ports, database and logs, and an empty
 * configuration of its own (the machine's names port 5672). It shares the machine's epmd, as every node does.
 */
export class PrivateRabbit {
  private child: ChildProcess | null = null;
  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  get url(): string {
    return `amqp://guest:guest@127.0.0.1:${this.port}`;
  }

  static async start(root: string): Promise<PrivateRabbit> {
    const dir = path.join(root, 'rabbitmq');
    for (const sub of ['home', 'mnesia', 'log']) mkdirSync(path.join(dir, sub), { recursive: true });
    const port = await freePort();
    const distPort = await freePort();
    writeFileSync(path.join(dir, 'rabbitmq.conf'), `listeners.tcp.local = 127.0.0.1:${port}\n`);
    writeFileSync(path.join(dir, 'enabled_plugins'), '[].\n');
    writeFileSync(path.join(dir, 'rabbitmq-env.conf'), '');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      // Erlang keeps its cookie in HOME: a home of this node's own.
      HOME: path.join(dir, 'home'),
      RABBITMQ_NODENAME: `chaos${port}@localhost`,
      RABBITMQ_NODE_PORT: String(port),
      RABBITMQ_DIST_PORT: String(distPort),
      RABBITMQ_MNESIA_BASE: path.join(dir, 'mnesia'),
      RABBITMQ_LOG_BASE: path.join(dir, 'log'),
      RABBITMQ_CONFIG_FILE: path.join(dir, 'rabbitmq.conf'),
      RABBITMQ_ENABLED_PLUGINS_FILE: path.join(dir, 'enabled_plugins'),
      RABBITMQ_CONF_ENV_FILE: path.join(dir, 'rabbitmq-env.conf'),
      ERL_EPMD_ADDRESS: '127.0.0.1',
      RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: '-kernel inet_dist_use_interface {127,0,0,1}',
    };
    const server = new PrivateRabbit(dir, port, env);
    await server.spawn();
    return server;
  }

  private async spawn(): Promise<void> {
    this.child = spawnGroup(rabbitmqServer(), [], this.env, path.join(this.dir, 'server.log'));
    const child = this.child;
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`rabbitmq-server exited ${child.exitCode} (see ${this.dir}/log)`);
        return amqpAnswers(this.port);
      },
      60_000,
      200,
      'rabbitmq answering AMQP',
    );
  }

  /** The node killed with SIGKILL (no clean shutdown) and started again on the same database. */
  async restartHard(): Promise<void> {
    await killGroup(this.child, 'SIGKILL');
    await this.spawn();
  }

  async stop(): Promise<void> {
    await killGroup(this.child, 'SIGKILL');
  }
}
