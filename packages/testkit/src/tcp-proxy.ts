import net from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a real server (RabbitMQ, PostgreSQL…): `cut()` drops every
 * connection and refuses new ones, `restore()` lets them through again. Simulates an outage of the
 * real component for one stack without stopping it for everybody else.
 */
export class TcpProxy {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  static async start(targetHost: string, targetPort: number, port = 0): Promise<TcpProxy> {
    const proxy = new TcpProxy(targetHost, targetPort);
    await proxy.listen(port);
    return proxy;
  }

  /** A proxy in front of the server a URL names (e.g. `amqp://…`), and that URL pointed at the proxy. */
  static async inFrontOf(url: string, defaultPort: number): Promise<{ proxy: TcpProxy; url: string }> {
    const target = new URL(url);
    const proxy = await TcpProxy.start(target.hostname, Number(target.port || defaultPort));
    const proxied = new URL(url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    return { proxy, url: proxied.toString() };
  }

  private listen(port: number): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, this.targetHost);
      this.sockets.add(client);
      this.sockets.add(upstream);
      const close = () => {
        client.destroy();
        upstream.destroy();
        this.sockets.delete(client);
        this.sockets.delete(upstream);
      };
      client.on('error', close).on('close', close);
      upstream.on('error', close).on('close', close);
      client.pipe(upstream).pipe(client);
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        this.port = (server.address() as net.AddressInfo).port;
        resolve();
      });
    });
  }

  /** Drops every open connection and stops listening (connections are refused). */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Listens again on the same port. */
  async restore(): Promise<void> {
    if (!this.server) await this.listen(this.port);
  }

  async close(): Promise<void> {
    await this.cut();
  }
}
