import type { AddressInfo, Socket } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { waitFor } from './wait';

export interface Mail {
  to: string[];
  raw: string;
  code: string | null;
}

/** A real SMTP server on 127.0.0.1 that keeps every message it receives. */
export async function startSmtp() {
  const mails: Mail[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  let breakOnNextMail = false;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onConnect(_session, callback) {
      connections += 1;
      callback();
    },
    onMailFrom(_address, _session, callback) {
      if (!breakOnNextMail) return callback();
      // No answer: the connection breaks under the client's MAIL FROM.
      breakOnNextMail = false;
      for (const socket of sockets) socket.destroy();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        mails.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          code:
            /\b(\d{6})\b/.exec(
              raw
                .split(/\r?\n\r?\n/)
                .slice(1)
                .join('\n'),
            )?.[1] ?? null,
        });
        callback();
      });
    },
  });
  server.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    mails,
    /** SMTP sessions opened so far (a pooled client opens one for many mails). */
    get connections() {
      return connections;
    },
    /** SMTP connections open now (a client's pool closed on shutdown leaves none). */
    get openConnections() {
      return sockets.size;
    },
    /** The next MAIL FROM, on whatever connection, is not answered: every open connection is destroyed. */
    breakOnNextMail() {
      breakOnNextMail = true;
    },
    /** The code of the latest mail to `address` received after `after` mails to it. */
    async codeFor(address: string, nth = 1): Promise<string> {
      return waitFor(
        () => {
          const toAddress = mails.filter((m) => m.to.includes(address));
          return toAddress.length >= nth ? (toAddress[nth - 1]!.code ?? undefined) : undefined;
        },
        10_000,
        50,
        `mail #${nth} to ${address}`,
      );
    },
    /** The `nth` mail to `address`, raw (headers and body), once it arrived. */
    async mailTo(address: string, nth = 1): Promise<Mail> {
      return waitFor(() => mails.filter((m) => m.to.includes(address))[nth - 1], 10_000, 50, `mail #${nth} to ${address}`);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
