import { INTERNAL_HEADERS, type InternalSession, type ResolveSessionBody } from '@idv/contracts';
import { Agent, request } from 'undici';
import type { RedeemResult, SessionsPort } from '../domain/flow-service';

export class SessionsClientError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`sessions service answered ${status}`);
    this.name = 'SessionsClientError';
  }
}

interface Problem {
  code?: string;
}

/** The sessions service's internal API, exactly as its owner publishes it (keep-alive pool, timeouts). */
export class SessionsClient implements SessionsPort {
  private readonly agent: Agent;

  constructor(
    private readonly baseUrl: string,
    private readonly internalToken: string,
    private readonly timeoutMs: number,
  ) {
    this.agent = new Agent({ connections: 64, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connectTimeout: timeoutMs });
  }

  private async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; text: string }> {
    const response = await request(`${this.baseUrl}${path}`, {
      method,
      dispatcher: this.agent,
      headers: {
        [INTERNAL_HEADERS.token]: this.internalToken,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.statusCode, text: await response.body.text() };
  }

  private static code(text: string): string | undefined {
    try {
      return (JSON.parse(text) as Problem).code;
    } catch {
      return undefined;
    }
  }

  async redeem(token: string): Promise<RedeemResult> {
    const { status, text } = await this.call('POST', `/internal/links/${encodeURIComponent(token)}/redeem`);
    if (status === 200) return { ok: true, session: JSON.parse(text) as InternalSession };
    const code = SessionsClient.code(text);
    if (status === 410) return { ok: false, reason: code === 'link_expired' ? 'link_expired' : 'link_redeemed' };
    if (status === 409) return { ok: false, reason: 'session_terminal' };
    if (status === 404 || status === 422) return { ok: false, reason: 'not_found' };
    throw new SessionsClientError(status, text);
  }

  async get(sessionId: string): Promise<InternalSession | null> {
    const { status, text } = await this.call('GET', `/internal/sessions/${encodeURIComponent(sessionId)}`);
    if (status === 200) return JSON.parse(text) as InternalSession;
    if (status === 404) return null;
    throw new SessionsClientError(status, text);
  }

  async activity(sessionId: string): Promise<'ok' | 'terminal'> {
    const { status, text } = await this.call('POST', `/internal/sessions/${encodeURIComponent(sessionId)}/activity`);
    if (status >= 200 && status < 300) return 'ok';
    if (status === 409) return 'terminal';
    throw new SessionsClientError(status, text);
  }

  async resolve(sessionId: string, body: ResolveSessionBody): Promise<'ok' | 'terminal'> {
    const { status, text } = await this.call('POST', `/internal/sessions/${encodeURIComponent(sessionId)}/resolve`, body);
    if (status >= 200 && status < 300) return 'ok';
    if (status === 409) return 'terminal';
    throw new SessionsClientError(status, text);
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
