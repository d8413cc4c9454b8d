import net from 'node:net';

export interface RawAnswer {
  status: number;
  text: string;
  /** Milliseconds from the connection to the first byte of the answer. */
  answeredAfterMs: number;
}

/**
 * One request written by hand on its own connection, for bodies no HTTP client would send (cut
 * multipart forms, lying lengths, trickles): `head` is the request line and headers without the blank
 * line; `body` is written at once, or piece by piece by `writeBody`. Resolves with the answer when the
 * connection closes, or after `answerWaitMs` once an answer's first bytes arrived.
 */
export function rawRequest(
  origin: string,
  head: string,
  options: {
    body?: Buffer | string;
    writeBody?: (socket: net.Socket) => void;
    answerWaitMs?: number;
    timeoutMs?: number;
    /** Leave the head open (no blank line): `writeBody` goes on writing headers. */
    headOpen?: boolean;
  } = {},
): Promise<RawAnswer> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let received = '';
    let answeredAfterMs = -1;
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timeout);
      socket.destroy();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0);
      if (status === 0) reject(new Error(`no HTTP answer, got ${JSON.stringify(received.slice(0, 200))}`));
      else resolve({ status, text: received, answeredAfterMs });
    };
    const timeout = setTimeout(finish, options.timeoutMs ?? 20_000);
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(`${head.replace(/\r?\n/g, '\r\n').trimEnd()}\r\n${options.headOpen ? '' : '\r\n'}`);
      if (options.body !== undefined) socket.write(options.body);
      options.writeBody?.(socket);
    });
    socket.on('data', (chunk: Buffer) => {
      if (answeredAfterMs < 0) {
        answeredAfterMs = Date.now() - started;
        setTimeout(finish, options.answerWaitMs ?? 300);
      }
      received += chunk.toString('utf8');
    });
    // The server may close while the body is still being written: the answer read so far counts.
    socket.on('error', () => finish());
    socket.on('close', () => finish());
  });
}

/** A multipart body as a browser writes it: each part with its headers, then the closing boundary. */
export function multipartBody(boundary: string, parts: { name: string; value: string | Buffer; filename?: string }[]): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename ? `; filename="${part.filename}"` : ''}`;
    const type = part.filename ? '\r\nContent-Type: image/jpeg' : '';
    chunks.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`),
      Buffer.from(part.value),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}
