import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ReceivedHit {
  headers: http.IncomingHttpHeaders;
  /** The body exactly as it arrived (what the signature is over). */
  raw: string;
}

/**
 * A webhook receiver on 127.0.0.1 (the stack's webhooks service may send there: WEBHOOKS_ALLOW_LOCAL_TARGETS in
 * tests) that records each request and answers as `answer` says.
 */
export class TestReceiver {
  readonly hits: ReceivedHit[] = [];
  private readonly sockets = new Set<Socket>();
  /** A path of this receiver alone, so nothing left over from another run is counted. */
  readonly path = `/hooks/${randomBytes(8).toString('hex')}`;

  private constructor(
    private readonly server: http.Server,
    public answer: (res: http.ServerResponse) => void,
  ) {}

  static async start(answer: (res: http.ServerResponse) => void): Promise<TestReceiver> {
    const server = http.createServer();
    const receiver = new TestReceiver(server, answer);
    server.on('connection', (socket) => {
      receiver.sockets.add(socket);
      socket.on('close', () => receiver.sockets.delete(socket));
    });
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.url !== receiver.path) return void res.writeHead(410).end();
        receiver.hits.push({ headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') });
        receiver.answer(res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${this.path}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
