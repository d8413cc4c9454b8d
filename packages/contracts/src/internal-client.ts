import { INTERNAL_HEADERS } from './identity';
import {
  contractPath,
  internalRoute,
  type InternalOperationId,
  type InternalRouteEntry,
  type InternalService,
} from './internal-routes';
import type { z } from './zod';

/** An internal route answered with an error status: the status and the problem body, as received. */
export class InternalCallError extends Error {
  constructor(
    readonly operationId: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    const detail = (body as { detail?: string } | null)?.detail;
    super(detail ? `${operationId}: ${status}: ${detail}` : `${operationId}: request failed with status ${status}`);
    this.name = 'InternalCallError';
  }

  /** The problem's stable `code`, when the owner answered with one. */
  get code(): string | undefined {
    return (this.body as { code?: string } | null)?.code;
  }
}

type EntryOf<Id extends InternalOperationId> = Extract<InternalRouteEntry, { operationId: Id }>;
type SuccessSpec<R extends InternalRouteEntry> = R['responses'][Extract<keyof R['responses'], 200 | 201>];
/** What the contract says the operation answers on success. */
export type InternalAnswer<Id extends InternalOperationId> =
  SuccessSpec<EntryOf<Id>> extends { schema: infer S extends z.ZodType } ? z.output<S> : never;

export interface InternalClientOptions {
  /** Base URL of each owner service this client calls. */
  urls: Partial<Record<InternalService, string>>;
  internalToken: string;
  timeoutMs?: number;
}

/**
 * Calls the services' internal routes (`INTERNAL_ROUTES`) by operation id: the owner and path come from
 * the contract, and the answer is parsed with the contract's schema, so a caller gets typed data or an
 * `InternalCallError`. The operator CLI and the dashboard both go through it.
 */
export class InternalClient {
  constructor(private readonly options: InternalClientOptions) {}

  async call<Id extends InternalOperationId>(
    operationId: Id,
    params: Record<string, string> = {},
    body?: unknown,
    query: Record<string, string> = {},
  ): Promise<InternalAnswer<Id>> {
    const route = internalRoute(operationId);
    const base = this.options.urls[route.service];
    if (!base) throw new Error(`${operationId}: no URL configured for the ${route.service} service`);
    const search = new URLSearchParams(query).toString();
    const response = await fetch(`${base.replace(/\/+$/, '')}${contractPath(route, params)}${search ? `?${search}` : ''}`, {
      method: route.method.toUpperCase(),
      headers: { 'content-type': 'application/json', [INTERNAL_HEADERS.token]: this.options.internalToken },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
    });
    const text = await response.text();
    const parsed: unknown = text ? JSON.parse(text) : null;
    if (response.status >= 400) throw new InternalCallError(operationId, response.status, parsed);
    const success = Object.entries(route.responses).find(([status]) => Number(status) < 300)?.[1] as
      { schema?: z.ZodType } | undefined;
    if (!success?.schema) throw new Error(`${operationId}: the contract declares no answer to parse`);
    return success.schema.parse(parsed) as InternalAnswer<Id>;
  }

  /**
   * An operation whose success is a file (its contract gives a `contentType`, no schema): the answer's
   * headers and its body as a stream, unread, for the caller to pass on as it arrives. The timeout is the
   * wait for the headers only (a long export may take longer); an error status throws `InternalCallError`.
   */
  async stream<Id extends InternalOperationId>(
    operationId: Id,
    params: Record<string, string> = {},
    query: Record<string, string> = {},
  ): Promise<{ status: number; headers: Headers; body: ReadableStream<Uint8Array> }> {
    const route = internalRoute(operationId);
    const success = Object.entries(route.responses).find(([status]) => Number(status) < 300)?.[1] as
      { contentType?: string } | undefined;
    if (!success?.contentType) throw new Error(`${operationId}: the contract declares no file to stream`);
    const base = this.options.urls[route.service];
    if (!base) throw new Error(`${operationId}: no URL configured for the ${route.service} service`);
    const search = new URLSearchParams(query).toString();
    const aborter = new AbortController();
    const timer = setTimeout(
      () => aborter.abort(new DOMException('The operation timed out.', 'TimeoutError')),
      this.options.timeoutMs ?? 10_000,
    );
    let response: Response;
    try {
      response = await fetch(`${base.replace(/\/+$/, '')}${contractPath(route, params)}${search ? `?${search}` : ''}`, {
        method: route.method.toUpperCase(),
        headers: { [INTERNAL_HEADERS.token]: this.options.internalToken },
        signal: aborter.signal,
      });
    } finally {
      clearTimeout(timer);
    }
    if (response.status >= 400 || !response.body) {
      const text = await response.text();
      let parsed: unknown = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = null;
      }
      throw new InternalCallError(operationId, response.status, parsed);
    }
    return { status: response.status, headers: response.headers, body: response.body };
  }
}
