import dns from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { withoutTracePropagation } from '@idv/kit';
import { Agent, buildConnector, request } from 'undici';
import { DisallowedAddressError, isDisallowedAddress, isIpLiteral } from '../domain/address-policy';
import type { ReceiverResponse, TransportError } from '../domain/delivery-decision';
import { RESPONSE_BODY_LIMIT, bodyPrefix, keptHeaders, type ReceivedReply } from '../domain/exchange';
import type { ReceiverClient } from '../domain/ports';

/** A few bytes past the limit are kept so `bodyPrefix` can see whether the limit splits a character. */
const UTF8_LOOKAHEAD = 4;

const optional = (reply: ReceivedReply | undefined) => (reply ? { reply } : {});

export interface SenderOptions {
  allowLocalTargets: boolean;
  timeoutMs: number;
  /** Keep-alive sockets per origin. */
  connectionsPerOrigin?: number;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * DNS lookup that refuses a name when any address it resolves to is not allowed. Runs for the very
 * connection being opened, so a name that changes its answer between checks (DNS rebinding) is
 * still judged on the address actually dialled.
 */
function guardedLookup(allowLocalTargets: boolean) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const bad = addresses.find((entry) => isDisallowedAddress(entry.address, allowLocalTargets));
      if (bad) return callback(new DisallowedAddressError(hostname, bad.address), []);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
      if (options.all) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}

/**
 * An undici connector that never dials a disallowed address (literal or resolved) and re-checks the
 * peer. With local targets allowed (development, tests) it still refuses metadata, link-local and the
 * IPv4-embedding IPv6 forms (address-policy.ts).
 */
function guardedConnector(timeoutMs: number, allowLocalTargets: boolean): buildConnector.connector {
  const base = buildConnector({ timeout: timeoutMs, lookup: guardedLookup(allowLocalTargets) });
  return (options, callback) => {
    const host = options.hostname.replace(/^\[|\]$/g, '');
    if (isIpLiteral(host) && isDisallowedAddress(host, allowLocalTargets)) {
      callback(new DisallowedAddressError(host, host), null);
      return;
    }
    base(options, (error, socket) => {
      if (error) return callback(error, null);
      const remote = socket.remoteAddress;
      if (!remote || isDisallowedAddress(remote, allowLocalTargets)) {
        socket.destroy();
        return callback(new DisallowedAddressError(host, remote ?? 'unknown'), null);
      }
      callback(null, socket);
    });
  };
}

function codesOf(error: unknown): { codes: string[]; names: string[]; messages: string[] } {
  const codes: string[] = [];
  const names: string[] = [];
  const messages: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const e = current as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown; errors?: unknown[] };
    if (typeof e.code === 'string') codes.push(e.code);
    if (typeof e.name === 'string') names.push(e.name);
    if (typeof e.message === 'string') messages.push(e.message);
    current = e.cause ?? (Array.isArray(e.errors) ? e.errors[0] : undefined);
  }
  return { codes, names, messages };
}

export function classifyError(error: unknown): { error: TransportError; reason: string } {
  const { codes, names, messages } = codesOf(error);
  const reason = messages[0] ?? 'request failed';
  const has = (...wanted: string[]) => wanted.some((w) => codes.includes(w) || names.includes(w));
  if (has('ERR_DISALLOWED_ADDRESS', 'DisallowedAddressError')) return { error: 'disallowed_address', reason };
  if (
    has('TimeoutError', 'AbortError', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT')
  ) {
    return { error: 'timeout', reason: 'no complete 2xx response within the time limit' };
  }
  if (has('ECONNREFUSED')) return { error: 'connection_refused', reason };
  if (has('ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE')) return { error: 'connection_reset', reason };
  if (has('ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME')) return { error: 'dns_failure', reason };
  return { error: 'network_error', reason };
}

/**
 * POSTs one signed body. The whole response (headers and body) must arrive within the timeout; the
 * body is read to its end, and only its first RESPONSE_BODY_LIMIT bytes are kept (with the headers) for
 * the delivery log. Redirects are never followed. What the status means is the domain's call
 * (`attemptOutcome`).
 */
export class HttpSender implements ReceiverClient {
  private readonly agent: Agent;

  constructor(private readonly options: SenderOptions) {
    const connections = options.connectionsPerOrigin ?? 32;
    this.agent = new Agent({
      connections,
      connect: guardedConnector(options.timeoutMs, options.allowLocalTargets),
      keepAliveTimeout: 4000,
    });
  }

  async send(url: string, headers: Record<string, string>, body: string): Promise<ReceiverResponse> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const target = new URL(url);
    if (!this.options.allowLocalTargets && target.protocol !== 'https:') {
      return {
        kind: 'failed',
        httpStatus: null,
        durationMs: 0,
        error: 'disallowed_address',
        reason: 'only https URLs are allowed',
      };
    }
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    let status: number | null = null;
    let replyHeaders: Record<string, string> | null = null;
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let bodyBytes = 0;
    const reply = (): ReceivedReply | undefined =>
      replyHeaders ? { headers: replyHeaders, body: bodyPrefix(Buffer.concat(kept)), bodyBytes } : undefined;
    try {
      // Traced as a span of ours, but our trace context stays with us: the receiver gets no traceparent.
      const response = await withoutTracePropagation(() =>
        request(target, {
          method: 'POST',
          headers,
          body,
          dispatcher: this.agent,
          signal,
          headersTimeout: this.options.timeoutMs,
          bodyTimeout: this.options.timeoutMs,
        }),
      );
      status = response.statusCode;
      replyHeaders = keptHeaders(response.headers);
      // The whole response must arrive in time; past the first bytes, its content is discarded unread.
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        bodyBytes += chunk.length;
        if (keptBytes < RESPONSE_BODY_LIMIT) {
          const part = chunk.subarray(0, RESPONSE_BODY_LIMIT - keptBytes + UTF8_LOOKAHEAD);
          kept.push(part);
          keptBytes += part.length;
        }
      }
      return { kind: 'answered', httpStatus: status, durationMs: elapsed(), ...optional(reply()) };
    } catch (error) {
      const { error: code, reason } = classifyError(error);
      return { kind: 'failed', httpStatus: status, durationMs: elapsed(), error: code, reason, ...optional(reply()) };
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
