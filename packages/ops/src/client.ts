import { INTERNAL_HEADERS, type Account, type ApiKey, type FlowConfig, type Mode, type Scope } from '@idv/contracts';
import { request } from 'undici';

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

export interface Project {
  id: string;
  object: 'project';
  account_id: string;
  name: string;
  created_at: string;
}

export interface PublishedConfig {
  id: string;
  project_id: string;
  mode: Mode;
}

/** The operator's view of the platform: what the dashboard will do, over the services' internal APIs. */
export class OpsClient {
  constructor(private readonly options: OpsClientOptions) {}

  private async call<T>(base: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const response = await request(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', [INTERNAL_HEADERS.token]: this.options.internalToken },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.body.text();
    const parsed: unknown = text ? JSON.parse(text) : null;
    if (response.statusCode >= 400) throw new OpsError(response.statusCode, parsed);
    return parsed as T;
  }

  private keys<T>(method: 'GET' | 'POST', path: string, body?: unknown) {
    return this.call<T>(this.options.keysUrl, method, path, body);
  }

  private sessions<T>(method: 'GET' | 'POST', path: string, body?: unknown) {
    return this.call<T>(this.options.sessionsUrl, method, path, body);
  }

  createAccount(input: { name: string; email: string }): Promise<Account> {
    return this.keys('POST', '/internal/accounts', input);
  }

  approveAccount(id: string): Promise<Account> {
    return this.keys('POST', `/internal/accounts/${encodeURIComponent(id)}/approve`);
  }

  suspendAccount(id: string): Promise<Account> {
    return this.keys('POST', `/internal/accounts/${encodeURIComponent(id)}/suspend`);
  }

  createKey(input: { account_id: string; mode: Mode; name: string; scopes?: Scope[] }): Promise<ApiKey & { secret: string }> {
    return this.keys('POST', '/internal/api-keys', input);
  }

  revokeKey(id: string): Promise<ApiKey> {
    return this.keys('POST', `/internal/api-keys/${encodeURIComponent(id)}/revoke`);
  }

  listKeys(accountId: string): Promise<{ data: ApiKey[] }> {
    return this.keys('GET', `/internal/accounts/${encodeURIComponent(accountId)}/api-keys`);
  }

  createProject(input: { account_id: string; name: string }): Promise<Project> {
    return this.sessions('POST', '/internal/projects', input);
  }

  publishConfig(projectId: string, mode: Mode, config: FlowConfig | Record<string, unknown>): Promise<PublishedConfig> {
    return this.sessions('POST', `/internal/projects/${encodeURIComponent(projectId)}/configs`, { mode, config });
  }

  creditBalance(accountId: string, tokens: number): Promise<{ account_id: string; balance: number }> {
    return this.sessions('POST', `/internal/accounts/${encodeURIComponent(accountId)}/credits`, { tokens });
  }

  balance(accountId: string): Promise<{ account_id: string; balance: number }> {
    return this.sessions('GET', `/internal/accounts/${encodeURIComponent(accountId)}/balance`);
  }
}

export function opsClientFromEnv(env: NodeJS.ProcessEnv = process.env): OpsClient {
  return new OpsClient({
    keysUrl: env.KEYS_URL ?? 'http://127.0.0.1:8081',
    sessionsUrl: env.SESSIONS_URL ?? 'http://127.0.0.1:8082',
    internalToken: env.INTERNAL_TOKEN ?? 'local-development-internal-token',
  });
}
