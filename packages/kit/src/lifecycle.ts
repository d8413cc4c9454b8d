import http from 'node:http';
import { ConfigError } from './config';
import { createLogger, type Logger } from './logger';
import { SchemaMismatchError } from './migrations';

type Stopper = { name: string; stop: () => Promise<void> | void };

/**
 * How long a client may take to send a request. Node checks these every `connectionsCheckingInterval`
 * (30 s by default, which would let a slow sender hold a connection for twice the headers timeout):
 * here every second. An idle keep-alive connection is not a request and is governed by the keep-alive
 * timeout alone, so the headers timeout can be much shorter than it.
 */
export interface ServerTimeouts {
  /**
   * How long an idle keep-alive connection stays open (Node closes it about a second later still). Above the
   * load balancer's idle timeout, so that the balancer, not the server, closes an idle connection.
   */
  keepAliveTimeoutMs: number;
  /** From a request's first byte to the end of its headers. */
  headersTimeoutMs: number;
  /** From a request's first byte to the end of its body, whatever the rate (uploads enforce a minimum rate themselves). */
  requestTimeoutMs: number;
}

/** Keep-alive above a load balancer's usual 60 s idle timeout (AWS ALB, GCP, nginx), so that it is the one to close. */
export const DEFAULT_SERVER_TIMEOUTS: ServerTimeouts = {
  keepAliveTimeoutMs: 65_000,
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 300_000,
};

/**
 * Owns a process's start and stop. On SIGTERM/SIGINT: `/readyz` turns 503, the HTTP server stops
 * accepting and finishes requests under way, then the other parts stop in reverse order of start
 * (consumers finish their messages before the broker and the pool close).
 */
export class Lifecycle {
  private readonly stoppers: Stopper[] = [];
  private stopping: Promise<void> | null = null;

  constructor(
    readonly logger: Logger,
    private readonly timeoutMs = 25_000,
    /** The HTTP server's timeouts (HTTP_*_TIMEOUT_MS), over the defaults; listen's argument overrides them. */
    private readonly serverTimeouts: Partial<ServerTimeouts> = {},
  ) {}

  get shuttingDown(): boolean {
    return this.stopping !== null;
  }

  onStop(name: string, stop: () => Promise<void> | void): void {
    this.stoppers.push({ name, stop });
  }

  async listen(
    app: http.RequestListener,
    port: number,
    host: string,
    overrides: Partial<ServerTimeouts> = {},
  ): Promise<http.Server> {
    const timeouts = { ...DEFAULT_SERVER_TIMEOUTS, ...this.serverTimeouts, ...overrides };
    const server = http.createServer(
      {
        keepAliveTimeout: timeouts.keepAliveTimeoutMs,
        headersTimeout: timeouts.headersTimeoutMs,
        requestTimeout: timeouts.requestTimeoutMs,
        connectionsCheckingInterval: 1000,
      },
      app,
    );
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    const address = server.address();
    this.logger.info({ port: typeof address === 'object' && address ? address.port : port }, 'listening');
    this.onStop('http', () => closeServer(server));
    return server;
  }

  installSignalHandlers(): void {
    const onSignal = (signal: NodeJS.Signals) => {
      this.logger.info({ signal }, 'shutting down');
      void this.stop().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }

  stop(): Promise<void> {
    this.stopping ??= this.runStoppers();
    return this.stopping;
  }

  private async runStoppers(): Promise<void> {
    const deadline = setTimeout(() => {
      this.logger.error({ timeoutMs: this.timeoutMs }, 'shutdown timed out; exiting');
      process.exit(1);
    }, this.timeoutMs);
    deadline.unref();
    for (const { name, stop } of [...this.stoppers].reverse()) {
      try {
        await stop();
        this.logger.debug({ part: name }, 'stopped');
      } catch (error) {
        this.logger.error({ err: error, part: name }, 'error while stopping');
      }
    }
    clearTimeout(deadline);
    this.logger.info('stopped');
  }
}

function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Idle keep-alive sockets would hold close() open; requests under way are left to finish.
    server.closeIdleConnections();
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    sweep.unref();
    server.once('close', () => clearInterval(sweep));
  });
}

/**
 * Entry point of every service's main.ts: a configuration error prints which variable is wrong and
 * exits 1 without a stack trace; anything else failing at start is logged and exits 1.
 */
export function runMain(service: string, start: () => Promise<Lifecycle>): void {
  start().then(
    (lifecycle) => lifecycle.installSignalHandlers(),
    (error: unknown) => {
      if (error instanceof ConfigError) {
        process.stderr.write(`${service}: ${error.message}\n`);
      } else if (error instanceof SchemaMismatchError) {
        createLogger({ service }).fatal(
          { schema: error.schema, unknownMigrations: error.unknown, missingMigrations: error.missing },
          error.message,
        );
      } else {
        createLogger({ service }).fatal({ err: error }, 'failed to start');
      }
      process.exit(1);
    },
  );
}
