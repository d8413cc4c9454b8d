import {
  ACTIVITY_REPORT_MAX,
  INTERNAL_HEADERS,
  type ActivityReportResult,
  type ActivityState,
  HoldSessionResultSchema,
  type InternalSession,
  type ResolveSessionBody,
} from '@idv/contracts';
import { Agent, request } from 'undici';
import { Batcher } from './batcher';
import type { RedeemResult, SessionsPort } from '../domain/ports';

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
  private readonly activityReports = new Batcher<string, ActivityState>((ids) => this.sendActivity(ids), {
    keyOf: (id) => id,
    sameKey: 'share',
    maxBatch: ACTIVITY_REPORT_MAX,
    maxInFlight: 1,
  });

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
    if (status === 409 && SessionsClient.code(text) === 'session_terminal') return { ok: false, reason: 'session_terminal' };
    if (status === 404 || status === 422) return { ok: false, reason: 'not_found' };
    throw new SessionsClientError(status, text);
  }

  async get(sessionId: string): Promise<InternalSession | null> {
    const { status, text } = await this.call('GET', `/internal/sessions/${encodeURIComponent(sessionId)}`);
    if (status === 200) return JSON.parse(text) as InternalSession;
    if (status === 404) return null;
    throw new SessionsClientError(status, text);
  }

  /**
   * Reports a submission as activity. Reports made while earlier ones are on their way wait for one
   * of them to come back and then go together in one call: under load a call carries many, and each
   * answer is still the sessions service's word given after the submission arrived.
   */
  activity(sessionId: string): Promise<'ok' | 'terminal'> {
    return this.activityReports.submit(sessionId).then((state) => {
      if (state === 'not_found') throw new SessionsClientError(404, `no session ${sessionId}`);
      return state === 'active' ? 'ok' : 'terminal';
    });
  }

  private async sendActivity(sessionIds: string[]): Promise<(ActivityState | undefined)[]> {
    const { status, text } = await this.call('POST', '/internal/sessions/activity', { session_ids: sessionIds });
    if (status !== 200) throw new SessionsClientError(status, text);
    const { sessions } = JSON.parse(text) as ActivityReportResult;
    return sessionIds.map((id) => sessions[id]);
  }

  async hold(sessionId: string, until: Date | null): Promise<'ok' | 'terminal'> {
    const { status, text } = await this.call('POST', `/internal/sessions/${encodeURIComponent(sessionId)}/hold`, {
      until: until === null ? null : until.toISOString(),
    });
    if (status !== 200) throw new SessionsClientError(status, text);
    return HoldSessionResultSchema.parse(JSON.parse(text)).state === 'active' ? 'ok' : 'terminal';
  }

  async resolve(sessionId: string, body: ResolveSessionBody): Promise<'ok' | 'terminal'> {
    const { status, text } = await this.call('POST', `/internal/sessions/${encodeURIComponent(sessionId)}/resolve`, body);
    if (status >= 200 && status < 300) return 'ok';
    // Only `session_terminal` means the session ended; a `conflict` (it was changing at that moment)
    // is an error the person can retry, never a verdict.
    if (status === 409 && SessionsClient.code(text) === 'session_terminal') return 'terminal';
    throw new SessionsClientError(status, text);
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
