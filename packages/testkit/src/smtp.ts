import type { AddressInfo } from 'node:net';
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
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    mails,
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
