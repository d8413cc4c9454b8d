import net from 'node:net';
import { DEFAULT_SERVER_TIMEOUTS, Lifecycle, baseEnvSchema, createLogger, loadConfig, startRuntime } from '../src';

/**
 * The HTTP server's keep-alive: an idle connection stays open for the configured time (beyond the headers
 * timeout, which applies to a request under way only), then the server closes it. Real sockets on 127.0.0.1,
 * with a 1.5 s keep-alive so the test takes seconds; the defaults are checked against load balancers' 60 s.
 */
const logger = createLogger({ service: 'kit-test', level: 'silent' });
const LOAD_BALANCER_IDLE_TIMEOUT_MS = 60_000; // AWS ALB's and GCP's default, nginx's upstream keep-alive

interface Connection {
  socket: net.Socket;
  responses: string[];
  closedAt: Promise<number>;
}

function connect(port: number): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const responses: string[] = [];
    const closedAt = new Promise<number>((done) => socket.once('close', () => done(Date.now())));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => responses.push(chunk));
    socket.once('connect', () => resolve({ socket, responses, closedAt }));
    socket.once('error', reject);
  });
}

async function request(connection: Connection): Promise<string> {
  const before = connection.responses.length;
  connection.socket.write('GET /ping HTTP/1.1\r\nHost: localhost\r\n\r\n');
  const deadline = Date.now() + 2000;
  while (connection.responses.length === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  return connection.responses.slice(before).join('');
}

it('when a connection is idle, then it stays open past the headers timeout and closes after the keep-alive timeout', async () => {
  const lifecycle = new Lifecycle(logger, 5000, { keepAliveTimeoutMs: 1500, headersTimeoutMs: 500 });
  const server = await lifecycle.listen((_req, res) => res.end('pong'), 0, '127.0.0.1');
  try {
    const port = (server.address() as net.AddressInfo).port;
    const connection = await connect(port);
    const first = await request(connection);
    expect(first).toMatch(/^HTTP\/1\.1 200/);
    expect(first).toMatch(/\r\nKeep-Alive: timeout=1\r\n/i);
    const idleFrom = Date.now();

    // Idle for 1.2 s: past the 0.5 s headers timeout, before the keep-alive timeout: still open and reusable.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(connection.socket.destroyed).toBe(false);
    expect(await request(connection)).toMatch(/^HTTP\/1\.1 200/);
    const idleAgainFrom = Date.now();

    const closedAfterMs = (await connection.closedAt) - idleAgainFrom;
    // Node closes an idle connection about a second after the advertised keep-alive timeout.
    expect(closedAfterMs).toBeGreaterThanOrEqual(1400);
    expect(closedAfterMs).toBeLessThan(4000);
    expect(idleAgainFrom - idleFrom).toBeGreaterThanOrEqual(1200);
  } finally {
    await lifecycle.stop();
  }
});

it('when nothing is configured, then idle connections outlive a load balancer’s 60 s idle timeout', () => {
  const config = loadConfig(baseEnvSchema, { INTERNAL_TOKEN: 'x'.repeat(20) });
  expect(config.HTTP_KEEP_ALIVE_TIMEOUT_MS).toBe(DEFAULT_SERVER_TIMEOUTS.keepAliveTimeoutMs);
  expect(DEFAULT_SERVER_TIMEOUTS.keepAliveTimeoutMs).toBeGreaterThan(LOAD_BALANCER_IDLE_TIMEOUT_MS);
  expect(DEFAULT_SERVER_TIMEOUTS.headersTimeoutMs).toBeLessThanOrEqual(DEFAULT_SERVER_TIMEOUTS.requestTimeoutMs);
});

it('when the timeouts are set in the environment, then the runtime’s server uses them', async () => {
  const config = loadConfig(baseEnvSchema, {
    INTERNAL_TOKEN: 'x'.repeat(20),
    LOG_LEVEL: 'silent',
    HTTP_KEEP_ALIVE_TIMEOUT_MS: '70000',
    HTTP_HEADERS_TIMEOUT_MS: '15000',
    HTTP_REQUEST_TIMEOUT_MS: '120000',
  });
  const { lifecycle } = startRuntime('kit-test', config);
  const server = await lifecycle.listen((_req, res) => res.end(), 0, '127.0.0.1');
  try {
    expect(server.keepAliveTimeout).toBe(70_000);
    expect(server.headersTimeout).toBe(15_000);
    expect(server.requestTimeout).toBe(120_000);
  } finally {
    await lifecycle.stop();
  }
});
