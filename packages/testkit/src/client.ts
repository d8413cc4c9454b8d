import { OpsClient } from '@idv/ops';
import { EMITTED_SESSION_EVENT_TYPES, type FlowConfig, type Mode, type Scope } from '@idv/contracts';
import { request } from 'undici';
import { testEnv } from './env';
import { openApiConformance } from './openapi-validator';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test responses are asserted field by field
export interface ApiResponse<T = any> {
  status: number;
  headers: Record<string, string>;
  text: string;
  body: T;
}

export interface ApiOptions {
  key?: string;
  body?: unknown;
  /** Sent as is, without JSON encoding (for malformed-body tests). */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  baseUrl?: string;
  /**
   * Check the response against the OpenAPI document (status, media type, body, required headers) and
   * throw on a mismatch. On by default for `/v1` calls to the stack's gateway, so every integration
   * test is also a contract test; pass `true` for another gateway (a private stack).
   */
  contract?: boolean;
}

function checksContract(path: string, options: ApiOptions): boolean {
  if (options.contract !== undefined) return options.contract;
  const toGateway = options.baseUrl === undefined || options.baseUrl === process.env.GATEWAY_URL;
  return toGateway && path.startsWith('/v1/');
}

/** One HTTP call to the gateway (or `baseUrl`), with the body parsed when it is JSON. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see ApiResponse
export async function api<T = any>(method: string, path: string, options: ApiOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | Buffer | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await request(`${options.baseUrl ?? testEnv().gatewayUrl}${path}`, {
    method: method as 'GET',
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.body.text();
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  if (checksContract(path, options)) {
    openApiConformance().assertResponse({ method, path, status: response.statusCode, headers: flat, text });
  }
  let parsed: unknown = text;
  if ((flat['content-type'] ?? '').includes('json') && text) parsed = JSON.parse(text);
  return { status: response.statusCode, headers: flat, text, body: parsed as T };
}

export function ops(): OpsClient {
  const env = testEnv();
  return new OpsClient({
    keysUrl: env.keysUrl,
    sessionsUrl: env.sessionsUrl,
    dashboardUrl: env.dashboardUrl,
    internalToken: env.internalToken,
  });
}

let counter = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${Date.now()}-${++counter}`;

/** An account of its own for each test: tests never share state through an account. */
export async function buildAccount(options: { status?: 'pending' | 'active' | 'suspended' } = {}) {
  const client = ops();
  const account = await client.createAccount({ name: unique('Test S.A.'), email: `${unique('owner')}@example.com` });
  const status = options.status ?? 'active';
  if (status !== 'pending') await client.approveAccount(account.id);
  if (status === 'suspended') await client.suspendAccount(account.id);
  return account;
}

export async function buildKey(accountId: string, mode: Mode = 'test', scopes?: Scope[]) {
  return ops().createKey({ account_id: accountId, mode, name: unique('key'), ...(scopes ? { scopes } : {}) });
}

/** A minimal flow: consent then a one-field form. */
export const SIMPLE_CONFIG = {
  steps: [{ id: 'extra', type: 'form', fields: [{ name: 'occupation', type: 'text', label: 'Ocupación', required: true }] }],
  options: {
    documentData: false,
    verifiedChannels: false,
    formData: false,
    evidenceLinks: false,
    webhookEvents: [...EMITTED_SESSION_EVENT_TYPES],
  },
} as unknown as FlowConfig;

/** An active account with a project published in the given modes and a key per mode. */
export async function buildTenant(
  options: { modes?: Mode[]; tokens?: number; config?: FlowConfig | Record<string, unknown>; scopes?: Scope[] } = {},
) {
  const client = ops();
  const account = await buildAccount();
  const project = await client.createProject({ account_id: account.id, name: unique('project') });
  const modes = options.modes ?? ['test', 'live'];
  for (const mode of modes) await client.publishConfig(project.id, mode, options.config ?? SIMPLE_CONFIG);
  if (options.tokens) await client.creditBalance(account.id, options.tokens);
  const testKey = await buildKey(account.id, 'test', options.scopes);
  const liveKey = await buildKey(account.id, 'live', options.scopes);
  return { account, project, testKey: testKey.secret, liveKey: liveKey.secret, testKeyId: testKey.id, liveKeyId: liveKey.id };
}
