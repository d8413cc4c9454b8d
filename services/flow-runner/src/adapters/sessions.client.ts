import {
  ACTIVITY_REPORT_MAX,
  INTERNAL_HEADERS,
  contractPath,
  internalRoute,
  type ActivityState,
  type FlowConfig,
  type InternalRoute,
  type InternalSession,
  type ResolveSessionBody,
  type SessionId,
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

const REDEEM = internalRoute('redeemLink');
const GET = internalRoute('getInternalSession');
const ACTIVITY = internalRoute('reportActivity');
const HOLD = internalRoute('holdSession');
const RESOLVE = internalRoute('resolveSession');

/**
 * A session as the contract describes it. Its configuration was parsed as a FlowConfig when it was
 * published and then frozen: parsing it again here would refuse sessions frozen under an earlier
 * version of the configuration schema, so it is taken as the sessions service keeps it.
 */
function internalSession(text: string): InternalSession {
  const session = GET.responses[200].schema.parse(JSON.parse(text));
  return { ...session, config: session.config as FlowConfig };
}

/** The sessions service's internal API, exactly as its owner publishes it (keep-alive pool, timeouts). */
export class SessionsClient implements SessionsPort {
  private readonly agent: Agent;
  private readonly activityReports = new Batcher<SessionId, ActivityState>((ids) => this.sendActivity(ids), {
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

  private async call(
    route: InternalRoute,
    params: Record<string, string>,
    body?: unknown,
  ): Promise<{ status: number; text: string }> {
    const response = await request(`${this.baseUrl}${contractPath(route, params)}`, {
      method: route.method === 'get' ? 'GET' : 'POST',
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
    const { status, text } = await this.call(REDEEM, { token });
    if (status === 200) return { ok: true, session: internalSession(text) };
    const code = SessionsClient.code(text);
    if (status === 410) return { ok: false, reason: code === 'link_expired' ? 'link_expired' : 'link_redeemed' };
    if (status === 409 && SessionsClient.code(text) === 'session_terminal') return { ok: false, reason: 'session_terminal' };
    if (status === 404 || status === 422) return { ok: false, reason: 'not_found' };
    throw new SessionsClientError(status, text);
  }

  async get(sessionId: SessionId): Promise<InternalSession | null> {
    const { status, text } = await this.call(GET, { id: sessionId });
    if (status === 200) return internalSession(text);
    if (status === 404) return null;
    throw new SessionsClientError(status, text);
  }

  /**
   * Reports a submission as activity. Reports made while earlier ones are on their way wait for one
   * of them to come back and then go together in one call: under load a call carries many, and each
   * answer is still the sessions service's word given after the submission arrived.
   */
  activity(sessionId: SessionId): Promise<'ok' | 'terminal'> {
    return this.activityReports.submit(sessionId).then((state) => {
      if (state === 'not_found') throw new SessionsClientError(404, `no session ${sessionId}`);
      return state === 'active' ? 'ok' : 'terminal';
    });
  }

  private async sendActivity(sessionIds: SessionId[]): Promise<(ActivityState | undefined)[]> {
    const { status, text } = await this.call(ACTIVITY, {}, { session_ids: sessionIds });
    if (status !== 200) throw new SessionsClientError(status, text);
    const { sessions } = ACTIVITY.responses[200].schema.parse(JSON.parse(text));
    return sessionIds.map((id) => sessions[id]);
  }

  async hold(sessionId: SessionId, until: Date | null): Promise<'ok' | 'terminal'> {
    const { status, text } = await this.call(HOLD, { id: sessionId }, { until: until === null ? null : until.toISOString() });
    if (status !== 200) throw new SessionsClientError(status, text);
    return HOLD.responses[200].schema.parse(JSON.parse(text)).state === 'active' ? 'ok' : 'terminal';
  }

  async resolve(sessionId: SessionId, body: ResolveSessionBody): Promise<'ok' | 'terminal'> {
    const { status, text } = await this.call(RESOLVE, { id: sessionId }, body);
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
