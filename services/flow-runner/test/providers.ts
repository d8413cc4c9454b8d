import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Stack, type StackOptions } from '@idv/testkit';

export { startSmtp, type Mail } from '@idv/testkit';

export interface RecordedRequest {
  path: string;
  authorization: string | undefined;
  body: any;
}

/** A stand-in of the WhatsApp Cloud API on 127.0.0.1: records requests; `failWith` makes it answer errors. */
export async function startWhatsapp() {
  const requests: RecordedRequest[] = [];
  const state: { failWith: number | null } = { failWith: null };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      requests.push({ path: req.url ?? '', authorization: req.headers.authorization, body: text ? JSON.parse(text) : null });
      res.setHeader('content-type', 'application/json');
      if (state.failWith !== null) {
        res.statusCode = state.failWith;
        res.end(JSON.stringify({ error: { message: '(#131026) Message undeliverable', type: 'OAuthException', code: 131026 } }));
        return;
      }
      res.end(JSON.stringify({ messaging_product: 'whatsapp', contacts: [{ wa_id: 'x' }], messages: [{ id: 'wamid.TEST' }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v21.0`,
    requests,
    failWith(status: number | null) {
      state.failWith = status;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface ReceivedEvent {
  headers: http.IncomingHttpHeaders;
  raw: string;
  body: any;
}

/** A webhook receiver on 127.0.0.1 that records deliveries as received (raw body kept for the signature). */
export async function startReceiver() {
  const events: ReceivedEvent[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      events.push({ headers: req.headers, raw, body: JSON.parse(raw) });
      res.statusCode = 200;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/hooks`, events, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** Checks `t=<unix>,v1=<hex>` over `<t>.<raw body>` with the endpoint secret, as a receiver must. */
export function signatureValid(header: string | undefined, raw: string, secret: string): boolean {
  if (!header) return false;
  const parts = header.split(',');
  const t = parts.find((p) => p.startsWith('t='))?.slice(2);
  if (!t) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${raw}`).digest();
  return parts
    .filter((p) => p.startsWith('v1='))
    .some((p) => {
      const given = Buffer.from(p.slice(3), 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/**
 * A stack of this test file's own (the shared one cannot be pointed at a test's SMTP server). The
 * process environment points at it while the file runs, so buildTenant() and friends use it.
 */
export async function startPrivateStack(options: StackOptions) {
  const stack = await Stack.start({ services: ['keys', 'sessions', 'webhooks', 'flow-runner', 'gateway'], ...options });
  const restoreEnv = stack.exportEnv();
  return {
    stack,
    async stop() {
      await stack.stop();
      restoreEnv();
    },
  };
}

export type RegistryBehaviour = 'match' | 'mismatch' | 'not_found' | 'unavailable' | 'hang' | 'malformed';

export interface RegistryRequest {
  path: string;
  authorization: string | undefined;
  idempotencyKey: string | undefined;
  body: any;
  answered: RegistryBehaviour;
}

/**
 * A stand-in of the national registry's HTTP API on 127.0.0.1 (docs/documents.md, "Registry check"):
 * records every request and answers as `behave` says (`hang` never answers; `unavailable` is a 503).
 */
export async function startRegistry() {
  const requests: RegistryRequest[] = [];
  const state: { behaviour: RegistryBehaviour; delayMs: number } = { behaviour: 'match', delayMs: 0 };
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const answered = state.behaviour;
      requests.push({
        path: req.url ?? '',
        authorization: req.headers.authorization,
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
        body: text ? JSON.parse(text) : null,
        answered,
      });
      const send = () => {
        res.setHeader('content-type', 'application/json');
        switch (answered) {
          case 'hang':
            hanging.add(res);
            return;
          case 'unavailable':
            res.statusCode = 503;
            res.end(JSON.stringify({ error: 'maintenance' }));
            return;
          case 'malformed':
            res.end('<html>502 Bad Gateway</html>');
            return;
          case 'mismatch':
            res.end(JSON.stringify({ result: 'mismatch', fields: ['birth_date'] }));
            return;
          case 'match':
          case 'not_found':
            res.end(JSON.stringify({ result: answered }));
        }
      };
      if (state.delayMs > 0) setTimeout(send, state.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    behave(behaviour: RegistryBehaviour, delayMs = 0) {
      state.behaviour = behaviour;
      state.delayMs = delayMs;
    },
    /** The requests about one document number, in order. */
    requestsFor: (number: string) => requests.filter((r) => r.body?.number === number),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
