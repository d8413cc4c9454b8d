import {
  INTERNAL_HEADERS,
  contractPath,
  internalRoute,
  type FlowConfig,
  type InternalOperationId,
  type InternalRouteEntry,
  type Mode,
  type Scope,
  type z,
} from '@idv/contracts';
import { request } from 'undici';

export type { Account, ApiKey, Balance, Project, PublishedConfig } from '@idv/contracts';

export interface OpsClientOptions {
  keysUrl: string;
  sessionsUrl: string;
  internalToken: string;
}

export class OpsError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    const detail = (body as { detail?: string } | null)?.detail;
    super(detail ? `${status}: ${detail}` : `request failed with status ${status}`);
    this.name = 'OpsError';
  }
}

type EntryOf<Id extends InternalOperationId> = Extract<InternalRouteEntry, { operationId: Id }>;
type SuccessSpec<R extends InternalRouteEntry> = R['responses'][Extract<keyof R['responses'], 200 | 201>];
/** What the contract says the operation answers on success. */
type Answer<Id extends InternalOperationId> =
  SuccessSpec<EntryOf<Id>> extends { schema: infer S extends z.ZodType } ? z.output<S> : never;

/** The operator's view of the platform: what the dashboard will do, over the services' internal APIs (INTERNAL_ROUTES). */
export class OpsClient {
  constructor(private readonly options: OpsClientOptions) {}

  /** Calls an internal operation at its owner and parses the answer with the contract's schema. */
  private async call<Id extends InternalOperationId>(
    operationId: Id,
    params: Record<string, string>,
    body?: unknown,
  ): Promise<Answer<Id>> {
    const route = internalRoute(operationId);
    const base = route.service === 'keys' ? this.options.keysUrl : this.options.sessionsUrl;
    const response = await request(`${base}${contractPath(route, params)}`, {
      method: route.method === 'get' ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json', [INTERNAL_HEADERS.token]: this.options.internalToken },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.body.text();
    const parsed: unknown = text ? JSON.parse(text) : null;
    if (response.statusCode >= 400) throw new OpsError(response.statusCode, parsed);
    const success = Object.entries(route.responses).find(([status]) => Number(status) < 300)?.[1] as
      { schema?: z.ZodType } | undefined;
    if (!success?.schema) throw new Error(`${operationId}: the contract declares no answer to parse`);
    return success.schema.parse(parsed) as Answer<Id>;
  }

  createAccount(input: { name: string; email: string }) {
    return this.call('createAccount', {}, input);
  }

  approveAccount(id: string) {
    return this.call('approveAccount', { id });
  }

  suspendAccount(id: string) {
    return this.call('suspendAccount', { id });
  }

  createKey(input: { account_id: string; mode: Mode; name: string; scopes?: Scope[] }) {
    return this.call('createApiKey', {}, input);
  }

  revokeKey(id: string) {
    return this.call('revokeApiKey', { id });
  }

  listKeys(accountId: string) {
    return this.call('listApiKeys', { id: accountId });
  }

  createProject(input: { account_id: string; name: string }) {
    return this.call('createProject', {}, input);
  }

  publishConfig(projectId: string, mode: Mode, config: FlowConfig | Record<string, unknown>) {
    return this.call('publishConfig', { id: projectId }, { mode, config });
  }

  creditBalance(accountId: string, tokens: number) {
    return this.call('creditBalance', { id: accountId }, { tokens });
  }

  balance(accountId: string) {
    return this.call('getBalance', { id: accountId });
  }
}

export function opsClientFromEnv(env: NodeJS.ProcessEnv = process.env): OpsClient {
  return new OpsClient({
    keysUrl: env.KEYS_URL ?? 'http://127.0.0.1:8081',
    sessionsUrl: env.SESSIONS_URL ?? 'http://127.0.0.1:8082',
    internalToken: env.INTERNAL_TOKEN ?? 'local-development-internal-token',
  });
}
