import {
  CONSENT_STEP,
  DRAFT_CONFIG_VERSION,
  configVersionId,
  eventId,
  newId,
  type AccountId,
  type AccountSessionSummary,
  type AccountSessionsQuery,
  type ApiKeyId,
  type DomainEvent,
  type FlowConfig,
  type InternalSession,
  type Mode,
  type Outcome,
  type ProjectId,
  type ResolveSessionBody,
  type SessionEventData,
  type SessionEventType,
  type SessionId,
  type SessionResult,
  type SessionStatus,
  type VerificationSession,
} from '@idv/contracts';

/** A session as the service stores it (what the repository returns). */
export interface SessionRecord {
  id: SessionId;
  accountId: AccountId;
  mode: Mode;
  projectId: ProjectId;
  /** A published version (from 1), or below zero: the frozen draft of a try. */
  configVersion: number;
  /** A try of a draft (the dashboard's "Try it"): never public, queues no event, debits nothing. */
  isTry: boolean;
  status: SessionStatus;
  externalRef: string | null;
  linkToken: string;
  /** The key that created the session; null on a try (started in the dashboard, not with a key). */
  apiKeyId: ApiKeyId | null;
  expiresAt: Date;
  redeemedAt: Date | null;
  idleDeadline: Date | null;
  result: SessionResult | null;
  completedAt: Date | null;
  createdAt: Date;
}

export interface LinkBases {
  /** The public API base (gateway): QR images. */
  publicBaseUrl: string;
  /** The person's flow base (flow-runner): the session url. */
  flowBaseUrl: string;
}

/**
 * `lt_` + a ULID, as the spec's id table says of every id but the event id and the config version.
 * Its 80 random bits come from the crypto source, so it stays unguessable (and it is single use, and
 * guessing is throttled per address); tokens of the older 192-bit shape stay valid until they expire.
 */
export function newLinkToken(): string {
  return newId('linkToken');
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

export function sessionUrl(bases: LinkBases, token: string): string {
  return `${trimSlash(bases.flowBaseUrl)}/l/${token}`;
}

export function qrUrls(bases: LinkBases, token: string): { svg: string; png: string } {
  const base = `${trimSlash(bases.publicBaseUrl)}/v1/qr/${token}`;
  return { svg: `${base}.svg`, png: `${base}.png` };
}

/** The link is usable while the session is pending and not expired (docs/design.md "Session status"). */
export function linkIsLive(session: Pick<SessionRecord, 'status' | 'expiresAt'>, now: Date): boolean {
  return session.status === 'pending' && session.expiresAt.getTime() > now.getTime();
}

/** The public representation; `url`, `qr` and `expires_at` only while the link is live. */
export function toPublicSession(session: SessionRecord, bases: LinkBases, now: Date): VerificationSession {
  const live = linkIsLive(session, now);
  return {
    id: session.id,
    object: 'verification_session',
    status: session.status,
    mode: session.mode,
    project_id: session.projectId,
    config_version: session.isTry ? DRAFT_CONFIG_VERSION : configVersionId(session.configVersion),
    ...(live
      ? {
          url: sessionUrl(bases, session.linkToken),
          qr: qrUrls(bases, session.linkToken),
          expires_at: session.expiresAt.toISOString(),
        }
      : {}),
    created_at: session.createdAt.toISOString(),
    ...(session.externalRef !== null ? { external_ref: session.externalRef } : {}),
    ...(session.result ? { result: session.result } : {}),
    ...(session.completedAt ? { completed_at: session.completedAt.toISOString() } : {}),
  };
}

export function toInternalSession(session: SessionRecord, config: FlowConfig, bases: LinkBases, now: Date): InternalSession {
  return {
    ...toPublicSession(session, bases, now),
    account_id: session.accountId,
    config,
    redeemed_at: session.redeemedAt ? session.redeemedAt.toISOString() : null,
    ...(session.isTry ? { try: true as const } : {}),
  };
}

/**
 * The result kept for a resolution: personal data only where the frozen configuration opted in
 * (spec "Without opt-in options the payload carries no personal data").
 */
export function filterResult(body: ResolveSessionBody, config: FlowConfig): SessionResult & { outcome: 'approved' | 'rejected' } {
  const { options } = config;
  return {
    outcome: body.outcome,
    reason_codes: body.outcome === 'approved' ? [] : body.reason_codes,
    steps: body.steps,
    ...(options.documentData && body.document ? { document: body.document } : {}),
    ...(options.verifiedChannels && body.verified_channels ? { verified_channels: body.verified_channels } : {}),
    ...(options.formData && body.form_data ? { form_data: body.form_data } : {}),
  };
}

/** Steps of a session that ended by time: every step of the frozen flow, none reached a verdict. */
export function unreachedSteps(config: FlowConfig): SessionResult['steps'] {
  return [CONSENT_STEP, ...config.steps].map((step) => ({ id: step.id, type: step.type, verdict: 'not_reached' as const }));
}

/** The domain event of one transition, with everything the webhooks service needs to fan out. */
export function sessionEvent(
  type: SessionEventType,
  session: VerificationSession,
  accountId: AccountId,
  config: FlowConfig,
  occurredAt: Date,
): DomainEvent<SessionEventData> {
  const { webhookEvents, documentData, verifiedChannels, formData, evidenceLinks } = config.options;
  return {
    id: eventId(accountId, session.id, type),
    type,
    occurred_at: occurredAt.toISOString(),
    data: {
      account_id: accountId,
      session,
      webhook_events: [...webhookEvents],
      options: { documentData, verifiedChannels, formData, evidenceLinks },
    },
  };
}

/** What the dashboard's list filters on; every field optional but the mode. */
export interface SessionFilter {
  mode: Mode;
  status?: SessionStatus;
  outcome?: Outcome;
  reasonCode?: string;
  projectId?: ProjectId;
  externalRef?: string;
  createdFrom?: Date;
  createdTo?: Date;
}

export function filterOf(query: AccountSessionsQuery): SessionFilter {
  return {
    mode: query.mode,
    ...(query.status ? { status: query.status } : {}),
    ...(query.outcome ? { outcome: query.outcome } : {}),
    ...(query.reason_code ? { reasonCode: query.reason_code } : {}),
    ...(query.project_id ? { projectId: query.project_id } : {}),
    ...(query.external_ref ? { externalRef: query.external_ref } : {}),
    ...(query.created_from ? { createdFrom: new Date(query.created_from) } : {}),
    ...(query.created_to ? { createdTo: new Date(query.created_to) } : {}),
  };
}

/** A row of the list, read without the result's personal data. */
export interface SessionSummaryRecord {
  id: SessionId;
  mode: Mode;
  status: SessionStatus;
  projectId: ProjectId;
  externalRef: string | null;
  outcome: Outcome | null;
  reasonCodes: string[];
  createdAt: Date;
  completedAt: Date | null;
}

export function toSessionSummary(row: SessionSummaryRecord): AccountSessionSummary {
  return {
    id: row.id,
    mode: row.mode,
    status: row.status,
    project_id: row.projectId,
    external_ref: row.externalRef,
    outcome: row.outcome,
    reason_codes: row.reasonCodes,
    created_at: row.createdAt.toISOString(),
    completed_at: row.completedAt ? row.completedAt.toISOString() : null,
  };
}
