import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request a receiver got: when, its headers, its body exactly as it arrived (what a signature is over) and parsed. */
export interface Hit {
  at: number;
  headers: http.IncomingHttpHeaders;
  raw: string;
  /** The body as JSON, null when it is not: untyped, as tests read what they sent. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export type Behaviour = (hit: Hit, res: http.ServerResponse, req: http.IncomingMessage) => void;

export const behaviours = {
  ok: (): Behaviour => (_hit, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'),
  status:
    (code: number): Behaviour =>
    (_hit, res) =>
      res.writeHead(code).end('nope'),
  redirect: (): Behaviour => (_hit, res) => res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end(),
  /** Never answers (the sender must give up at its timeout). */
  hang: (): Behaviour => () => undefined,
  /** Closes the connection without an answer. */
  close: (): Behaviour => (_hit, _res, req) => req.socket.destroy(),
  /** Answers 200 after `ms`. */
  slow:
    (ms: number): Behaviour =>
    (_hit, res) => {
      setTimeout(() => res.writeHead(200).end('late'), ms);
    },
  /** Sends 200 headers at once but the body only after `ms` (the body counts in the timeout). */
  slowBody:
    (ms: number): Behaviour =>
    (_hit, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
      setTimeout(() => res.end('rest'), ms);
    },
  /** Fails the first `n` requests with 500, then answers 200. */
  failFirst: (n: number): Behaviour => {
    let seen = 0;
    return (_hit, res) => {
      seen += 1;
      res.writeHead(seen <= n ? 500 : 200).end();
    };
  },
};

/**
 * A real webhook receiver on 127.0.0.1 that records every request with its raw body (what a signature is over)
 * and answers as its `behaviour` says (changeable mid-test). A stack's webhooks service may send there when
 * local targets are allowed (WEBHOOKS_ALLOW_LOCAL_TARGETS in tests).
 */
export class Receiver {
  readonly hits: Hit[] = [];
  private readonly sockets = new Set<Socket>();
  /** A path of this receiver alone: a message left over from an earlier run to a reused port is not counted. */
  readonly path = `/hooks/${randomBytes(8).toString('hex')}`;
  private constructor(
    private readonly server: http.Server,
    public behaviour: Behaviour,
  ) {}

  static async start(behaviour: Behaviour = behaviours.ok()): Promise<Receiver> {
    const server = http.createServer();
    const receiver = new Receiver(server, behaviour);
    server.on('connection', (socket) => {
      receiver.sockets.add(socket);
      socket.on('close', () => receiver.sockets.delete(socket));
    });
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.url !== receiver.path) {
          res.writeHead(410).end();
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        let body: unknown = null;
        try {
          body = JSON.parse(raw);
        } catch {
          body = null;
        }
        const hit: Hit = { at: Date.now(), headers: req.headers, raw, body };
        receiver.hits.push(hit);
        receiver.behaviour(hit, res, req);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}${this.path}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * The receivers of one test file: `receiver(behaviour)` starts one, and all of them are closed after
 * the file (registers its own `afterAll`).
 */
export function receiversOfThisFile(defaultBehaviour?: () => Behaviour): (behaviour?: Behaviour) => Promise<Receiver> {
  const started: Receiver[] = [];
  afterAll(() => Promise.all(started.map((r) => r.close())));
  return async (behaviour = defaultBehaviour?.()) => {
    if (!behaviour) throw new Error('receiver: say how it answers');
    const r = await Receiver.start(behaviour);
    started.push(r);
    return r;
  };
}
