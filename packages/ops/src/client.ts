import { InternalClient, type FlowConfig, type Mode, type Scope } from '@idv/contracts';

export type { Account, ApiKey, Balance, Project, PublishedConfig } from '@idv/contracts';

export interface OpsClientOptions {
  keysUrl: string;
  sessionsUrl: string;
  /** Unset: the dashboard's operations are not available to this client. */
  dashboardUrl?: string;
  internalToken: string;
}

/** The operator's view of the platform, over the services' internal APIs (INTERNAL_ROUTES), as the dashboard's. */
export class OpsClient {
  private readonly internal: InternalClient;

  constructor(options: OpsClientOptions) {
    this.internal = new InternalClient({
      urls: {
        keys: options.keysUrl,
        sessions: options.sessionsUrl,
        ...(options.dashboardUrl ? { dashboard: options.dashboardUrl } : {}),
      },
      internalToken: options.internalToken,
    });
  }

  private get call(): InternalClient['call'] {
    return this.internal.call.bind(this.internal);
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

  /** An owner who signs in to the dashboard, added to an existing account. */
  createAccountOwner(accountId: string, input: { email: string; name: string; password: string }) {
    return this.call('createAccountOwner', { id: accountId }, input);
  }

  /** An operator of the service; TOTP is enrolled at the first sign-in to the console. */
  createOperator(input: { email: string; name: string; password: string }) {
    return this.call('createOperator', {}, input);
  }

  balance(accountId: string) {
    return this.call('getBalance', { id: accountId });
  }
}

export function opsClientFromEnv(env: NodeJS.ProcessEnv = process.env): OpsClient {
  return new OpsClient({
    keysUrl: env.KEYS_URL ?? 'http://127.0.0.1:8081',
    sessionsUrl: env.SESSIONS_URL ?? 'http://127.0.0.1:8082',
    dashboardUrl: env.DASHBOARD_URL ?? 'http://127.0.0.1:8085',
    internalToken: env.INTERNAL_TOKEN ?? 'local-development-internal-token',
  });
}
