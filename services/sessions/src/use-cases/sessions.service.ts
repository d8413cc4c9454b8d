import {
  configVersionId,
  newId,
  type AccountId,
  type AccountSession,
  type AccountSessionList,
  type AccountSessionsQuery,
  type ActivityState,
  type CreateSessionBody,
  type DomainEvent,
  type FlowConfig,
  type Identity,
  type InternalSession,
  type Mode,
  type PaginationQuery,
  type ProjectId,
  type ResolveSessionBody,
  type SessionId,
  type VerificationSession,
} from '@idv/contracts';
import {
  AppError,
  HOUR,
  MINUTE,
  notFound,
  scaled,
  toPage,
  withTransaction,
  type CursorCodec,
  type Metrics,
  type Pool,
  type Queryable,
} from '@idv/kit';
import { alertAfterDebit, rearmAlerts, setBalanceThreshold } from './balance-alerts';
import * as ledger from '../adapters/ledger.repository';
import * as projects from '../adapters/projects.repository';
import * as sessions from '../adapters/sessions.repository';
import { createSession, isRecordRace } from '../adapters/session-create.repository';
import { defaultThreshold } from '../domain/balance-alerts';
import { decide, idempotencyLockKey, requestHash } from '../domain/idempotency';
import {
  filterResult,
  linkIsLive,
  newLinkToken,
  filterOf,
  sessionEvent,
  toInternalSession,
  toSessionSummary,
  toPublicSession,
  type LinkBases,
  type SessionRecord,
} from '../domain/session';
import { IllegalTransitionError, transition, type SessionAction } from '../domain/session-state';

type Counter = ReturnType<Metrics['counter']>;

/** How many tries of drafts one account may start in an hour (they cost reading and face work, and no token). */
export const TRIES_PER_HOUR = 30;
/** A try's link stays valid this long: the dashboard's "Try it" is used right away. */
const TRY_LINK_HOURS = 1;

/** The spec's idle period after which a started flow is abandoned (docs/design.md), before TIME_SCALE. */
export const ABANDON_AFTER_MS = 30 * MINUTE;

export interface SessionsServiceOptions {
  pool: Pool;
  metrics: Metrics;
  bases: LinkBases;
  timeScale: number;
  /** Signs and checks the session list's cursors (kit `cursorCodec`, keyed from INTERNAL_TOKEN). */
  cursors: CursorCodec;
  now?: () => Date;
}

export interface CreateResult {
  status: number;
  /** The JSON body as sent the first time; a replay sends these very bytes again. */
  body: string;
  replayed: boolean;
}

/** Maps the state machine's refusal to the API's codes: a decision on the row as read, never retried. */
function refuse(error: unknown): never {
  if (error instanceof IllegalTransitionError) {
    if (error.terminal) throw new AppError('session_terminal', `The session is already ${error.from}.`);
    throw new AppError('conflict', error.message);
  }
  throw error;
}

/** The session's status moved between the read and the compare-and-set write: read again and decide anew. */
class StaleSessionRead extends Error {
  constructor() {
    super('The session changed meanwhile.');
    this.name = 'StaleSessionRead';
  }
}

const RACE_RETRIES = 3;

/** Where the public session's JSON holds its config version id (after fields that never hold a quote). */
const CONFIG_VERSION_FIELD = '"config_version":"';

/** The sessions use cases: each one transaction, state changes through the state machine only. */
export class SessionsService {
  private readonly configCache = new Map<string, FlowConfig>();
  readonly counters: { created: Counter; transitions: Counter; replays: Counter };
  private readonly pool: Pool;
  readonly bases: LinkBases;
  private readonly timeScale: number;
  private readonly cursors: CursorCodec;
  readonly now: () => Date;

  constructor(options: SessionsServiceOptions) {
    this.pool = options.pool;
    this.bases = options.bases;
    this.timeScale = options.timeScale;
    this.cursors = options.cursors;
    this.now = options.now ?? (() => new Date());
    this.counters = {
      created: options.metrics.counter('sessions_created_total', 'Verification sessions created, by mode', ['mode']),
      transitions: options.metrics.counter('session_transitions_total', 'Session status transitions', ['from', 'to']),
      replays: options.metrics.counter('sessions_idempotent_replays_total', 'Creates answered from an idempotency record'),
    };
  }

  get abandonAfterMs(): number {
    return scaled(ABANDON_AFTER_MS, this.timeScale);
  }

  /** A frozen configuration; versions never change, so they are cached forever (bounded). */
  async config(db: Queryable, projectId: ProjectId, version: number): Promise<FlowConfig> {
    const key = `${projectId}:${version}`;
    const cached = this.configCache.get(key);
    if (cached) return cached;
    const config = await projects.findConfig(db, projectId, version);
    if (!config) throw new Error(`config version ${key} is missing`);
    if (this.configCache.size >= 5000) this.configCache.clear();
    this.configCache.set(key, config);
    return config;
  }

  // ── Projects, configurations, balance (internal) ────────────────────────────────────────────

  createProject(accountId: AccountId, name: string) {
    return projects.insertProject(this.pool, { id: newId('project'), accountId, name });
  }

  listProjects(accountId: AccountId) {
    return projects.listProjects(this.pool, accountId);
  }

  async renameProject(projectId: ProjectId, name: string) {
    const renamed = await projects.renameProject(this.pool, projectId, name);
    if (!renamed) throw notFound('project');
    return renamed;
  }

  async configVersions(projectId: ProjectId) {
    const versions = await projects.listConfigVersions(this.pool, projectId, 101);
    if (!versions) throw notFound('project');
    return { versions: versions.slice(0, 100), hasMore: versions.length > 100 };
  }

  async publishConfig(projectId: ProjectId, mode: Mode, config: FlowConfig): Promise<number> {
    const version = await withTransaction(this.pool, (tx) => projects.publishConfig(tx, projectId, mode, config));
    if (version === null) throw notFound('project');
    this.configCache.set(`${projectId}:${version}`, config);
    return version;
  }

  /**
   * The dashboard's "Try it": a test session on `config`, the project's draft, frozen as a try (never a
   * publication, no pointer moved). No event and no debit; hidden from the public API and the usage.
   * At most TRIES_PER_HOUR per account, counted under the account's lock so a burst cannot pass it.
   */
  async tryDraft(accountId: AccountId, projectId: ProjectId, config: FlowConfig): Promise<InternalSession> {
    const now = this.now();
    const record = await withTransaction(this.pool, async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 7))`, [`tries:${accountId}`]);
      if ((await sessions.countTriesSince(tx, accountId, new Date(now.getTime() - HOUR))) >= TRIES_PER_HOUR) {
        throw new AppError('rate_limited', `At most ${TRIES_PER_HOUR} tries an hour; try again later or publish to test.`);
      }
      const version = await projects.freezeDraft(tx, accountId, projectId, config);
      if (version === null) throw notFound('project');
      const session: SessionRecord = {
        id: newId('session'),
        accountId,
        mode: 'test',
        projectId,
        configVersion: version,
        isTry: true,
        status: 'pending',
        externalRef: null,
        linkToken: newLinkToken(),
        apiKeyId: null,
        expiresAt: new Date(now.getTime() + scaled(TRY_LINK_HOURS * HOUR, this.timeScale)),
        redeemedAt: null,
        idleDeadline: null,
        result: null,
        completedAt: null,
        createdAt: now,
      };
      await sessions.insertTrySession(tx, session);
      return session;
    });
    this.configCache.set(`${projectId}:${record.configVersion}`, config);
    return toInternalSession(record, config, this.bases, now);
  }

  /** A credit, and in its transaction the low-balance alerts it lifts the balance back above are re-armed. */
  credit(accountId: AccountId, tokens: number, reason?: string): Promise<number> {
    return withTransaction(this.pool, async (tx) => {
      const balance = await ledger.credit(tx, accountId, tokens, reason);
      await rearmAlerts(tx, accountId);
      return balance;
    });
  }

  setBalanceThreshold(accountId: AccountId, tokens: number | null) {
    return setBalanceThreshold(this.pool, accountId, tokens, this.now());
  }

  balance(accountId: AccountId): Promise<number> {
    return ledger.balanceOf(this.pool, accountId);
  }

  /** The balance, the last 7 days' debits (a forecast's rate), the low-balance threshold and a page of the ledger, read at once. */
  async ledger(accountId: AccountId, before: number | null, limit: number) {
    const weekAgo = new Date(Date.now() - 7 * 24 * 3_600_000);
    const [{ balance, threshold }, debitedLast7Days, entries] = await Promise.all([
      ledger.balanceAndThresholdOf(this.pool, accountId),
      ledger.debitedSince(this.pool, accountId, weekAgo),
      ledger.ledgerPage(this.pool, accountId, before, limit + 1),
    ]);
    return {
      balance,
      debitedLast7Days,
      threshold,
      defaultThreshold: defaultThreshold(debitedLast7Days),
      entries: entries.slice(0, limit),
      hasMore: entries.length > limit,
    };
  }

  /** What the dashboard's go-live checklist asks of this service: projects live, and tokens. */
  async flowReadiness(accountId: AccountId): Promise<{ liveProjects: number; balance: number }> {
    const [liveProjects, balance] = await Promise.all([
      projects.countLiveProjects(this.pool, accountId),
      ledger.balanceOf(this.pool, accountId),
    ]);
    return { liveProjects, balance };
  }

  // ── Public session operations ───────────────────────────────────────────────────────────────

  /**
   * Creates a session, honouring an Idempotency-Key, in one statement (`createSession`): take the key's advisory
   * lock without waiting (taken: another request is in flight, 409), replay or refuse an existing record, else
   * insert the session, debit (live) and store the response, all committed together. A live create runs it in a
   * transaction, whose commit waits for the low-balance alert the debit may decide. A failure rolls everything
   * back, so a retry with the same key runs again. A test create without a key is the plain INSERT.
   */
  async create(identity: Identity, body: CreateSessionBody, key?: string): Promise<CreateResult> {
    const now = this.now();
    const record = this.newSessionRecord(identity, body, now);
    if (key === undefined && identity.mode === 'test') {
      const configVersion = await sessions.insertSession(this.pool, record);
      if (configVersion === null) return this.refuseInsert(this.pool, identity, body.project_id);
      this.counters.created.inc({ mode: identity.mode });
      const session = toPublicSession({ ...record, configVersion, isTry: false }, this.bases, now);
      return { status: 201, body: JSON.stringify(session), replayed: false };
    }
    // The answer is known but for the version the insert binds: the statement stores it cut around that id.
    const draft = JSON.stringify(toPublicSession({ ...record, configVersion: 1, isTry: false }, this.bases, now));
    const cut = draft.indexOf(CONFIG_VERSION_FIELD) + CONFIG_VERSION_FIELD.length;
    const [before, after] = [draft.slice(0, cut), draft.slice(cut + configVersionId(1).length)];
    const scope =
      key === undefined ? null : { accountId: identity.account_id, mode: identity.mode, apiKeyId: identity.key_id, key };
    const hash = key === undefined ? '' : requestHash(body);
    const options = {
      debit: identity.mode === 'live',
      key: scope
        ? { scope, lockKey: idempotencyLockKey(scope), requestHash: hash, bodyBeforeVersion: before, bodyAfterVersion: after }
        : undefined,
    };
    const attempt = async (db: Queryable): Promise<CreateResult> => {
      const outcome = await createSession(db, record, options);
      switch (outcome.kind) {
        case 'in_flight':
          throw new AppError('conflict', 'A request with this Idempotency-Key is still in flight; retry in a few seconds.');
        case 'recorded': {
          const decision = decide(outcome.record, hash);
          if (decision.kind === 'mismatch') {
            throw new AppError('conflict', 'This Idempotency-Key was already used with a different request body.');
          }
          this.counters.replays.inc();
          return { status: decision.status, body: decision.body, replayed: true };
        }
        case 'no_version':
          return this.refuseInsert(db, identity, body.project_id);
        case 'created':
          if (options.debit) {
            // In the same transaction as the insert: no balance, no session (the rollback takes both).
            if (!outcome.debited) {
              throw new AppError('insufficient_balance', 'The account has no tokens left for live sessions; load balance first.');
            }
            await alertAfterDebit(db, identity.account_id, outcome.debited, now);
          }
          this.counters.created.inc({ mode: identity.mode });
          return { status: 201, body: before + configVersionId(outcome.configVersion) + after, replayed: false };
      }
    };
    for (let tries = 1; ; tries++) {
      try {
        return options.debit ? await withTransaction(this.pool, attempt) : await attempt(this.pool);
      } catch (error) {
        // A create with the same key committed while this statement's snapshot was already taken: read again.
        if (!isRecordRace(error) || tries >= RACE_RETRIES) throw error;
      }
    }
  }

  private newSessionRecord(
    identity: Identity,
    body: CreateSessionBody,
    now: Date,
  ): Omit<SessionRecord, 'configVersion' | 'isTry'> {
    return {
      id: newId('session'),
      accountId: identity.account_id,
      mode: identity.mode,
      projectId: body.project_id,
      status: 'pending',
      externalRef: body.external_ref ?? null,
      linkToken: newLinkToken(),
      apiKeyId: identity.key_id,
      expiresAt: new Date(now.getTime() + scaled(body.expires_in_hours * HOUR, this.timeScale)),
      redeemedAt: null,
      idleDeadline: null,
      result: null,
      completedAt: null,
      createdAt: now,
    };
  }

  /** The insert bound no version: says whether the project is not the account's or has nothing published. */
  private async refuseInsert(db: Queryable, identity: Identity, projectId: ProjectId): Promise<never> {
    const project = await projects.findActiveVersion(db, identity.account_id, projectId, identity.mode);
    if (!project) {
      throw new AppError('validation_failed', 'project_id does not refer to a project of this account.', {
        errors: [{ path: 'project_id', message: 'no such project' }],
      });
    }
    throw new AppError('config_not_published', `The project has no configuration published in ${identity.mode} mode.`);
  }

  async list(identity: Identity, query: PaginationQuery) {
    const after = query.cursor ? this.cursors.decode(query.cursor) : null;
    const rows = await sessions.listSessions(this.pool, identity.account_id, identity.mode, query.limit, after);
    const now = this.now();
    return toPage(
      rows,
      query.limit,
      (row) => toPublicSession(row, this.bases, now),
      (row) => ({ createdAt: row.createdAt.toISOString(), id: row.id }),
      this.cursors,
    );
  }

  async get(identity: Identity, id: SessionId): Promise<VerificationSession> {
    const session = await sessions.findOwnedSession(this.pool, identity.account_id, identity.mode, id);
    if (!session) throw notFound('verification session');
    return toPublicSession(session, this.bases, this.now());
  }

  async cancel(identity: Identity, id: SessionId): Promise<VerificationSession> {
    const updated = await this.cancelOwned(identity.account_id, identity.mode, id);
    return toPublicSession(updated, this.bases, this.now());
  }

  /** A key sees its own mode's sessions; the dashboard (`mode` null) sees both. A try is never cancelled here. */
  private async cancelOwned(accountId: AccountId, mode: Mode | null, id: SessionId): Promise<SessionRecord> {
    return this.withoutLock(async () => {
      const session = await sessions.findSession(this.pool, id);
      if (!session || session.accountId !== accountId || (mode !== null && session.mode !== mode) || session.isTry) {
        throw notFound('verification session');
      }
      return this.apply(this.pool, session, { kind: 'cancel' });
    });
  }

  // ── The dashboard's sessions pages (an account's sessions of both modes, by its owner's people) ──

  async listForAccount(accountId: AccountId, query: AccountSessionsQuery): Promise<AccountSessionList> {
    const after = query.cursor ? this.cursors.decode(query.cursor) : null;
    const rows = await sessions.listAccountSessions(this.pool, accountId, { ...filterOf(query), after, limit: query.limit });
    return toPage(
      rows,
      query.limit,
      toSessionSummary,
      (row) => ({ createdAt: row.createdAt.toISOString(), id: row.id }),
      this.cursors,
    );
  }

  async getForAccount(accountId: AccountId, id: SessionId): Promise<AccountSession> {
    const session = await sessions.findSession(this.pool, id);
    if (!session || session.accountId !== accountId || session.isTry) throw notFound('verification session');
    return this.accountSessionOf(session);
  }

  async cancelForAccount(accountId: AccountId, id: SessionId): Promise<AccountSession> {
    return this.accountSessionOf(await this.cancelOwned(accountId, null, id));
  }

  private async accountSessionOf(session: SessionRecord): Promise<AccountSession> {
    const config = await this.config(this.pool, session.projectId, session.configVersion);
    return { ...toInternalSession(session, config, this.bases, this.now()), api_key_id: session.apiKeyId };
  }

  /** The QR target of a link token, or the reason it is gone. */
  async qrTarget(token: string): Promise<SessionRecord> {
    const session = await sessions.findByToken(this.pool, token);
    if (!session) throw notFound('link');
    if (session.redeemedAt) throw new AppError('link_redeemed', 'This link was already opened and redeemed.');
    if (!linkIsLive(session, this.now())) throw new AppError('link_expired', 'This link is no longer valid.');
    return session;
  }

  // ── Internal operations for the flow-runner ─────────────────────────────────────────────────

  async redeem(token: string): Promise<InternalSession> {
    // The usual case, a live link opened once, is one statement; anything else (an unknown, redeemed,
    // expired or terminal link, or a race) is read and refused or retried below, as before.
    const redeemedNow = await this.redeemLiveLink(token);
    if (redeemedNow) return redeemedNow;
    return this.withoutLock(async () => {
      const session = await sessions.findByToken(this.pool, token);
      if (!session) throw notFound('link');
      if (session.redeemedAt) throw new AppError('link_redeemed', 'This link was already redeemed.');
      if (session.status === 'expired' || (session.status === 'pending' && !linkIsLive(session, this.now()))) {
        throw new AppError('link_expired', 'This link has expired.');
      }
      const now = this.now();
      const updated = await this.apply(
        this.pool,
        session,
        { kind: 'redeem' },
        {
          redeemedAt: now,
          idleDeadline: new Date(now.getTime() + this.abandonAfterMs),
        },
      );
      return toInternalSession(updated, await this.config(this.pool, updated.projectId, updated.configVersion), this.bases, now);
    });
  }

  /** The state machine's pending → in_progress written where the link is live; null when it is not. */
  private async redeemLiveLink(token: string): Promise<InternalSession | null> {
    const now = this.now();
    const t = transition('pending', { kind: 'redeem' }, now);
    const updated = await sessions.redeemLiveLink(this.pool, token, t, {
      redeemedAt: now,
      idleDeadline: new Date(now.getTime() + this.abandonAfterMs),
    });
    if (!updated) return null;
    this.counters.transitions.inc({ from: t.from, to: t.to });
    return toInternalSession(updated, await this.config(this.pool, updated.projectId, updated.configVersion), this.bases, now);
  }

  async getInternal(id: SessionId): Promise<InternalSession> {
    const session = await sessions.findSession(this.pool, id);
    if (!session) throw notFound('verification session');
    const config = await this.config(this.pool, session.projectId, session.configVersion);
    return toInternalSession(session, config, this.bases, this.now());
  }

  /**
   * The flow-runner's activity report: pushes the abandonment deadline of each named session that is
   * still going, in one statement (reports of concurrent submissions come together).
   */
  async reportActivity(ids: readonly SessionId[]): Promise<Record<SessionId, ActivityState>> {
    const unique = [...new Set(ids)];
    const pushed = await sessions.pushIdleDeadlines(this.pool, unique, new Date(this.now().getTime() + this.abandonAfterMs));
    return Object.fromEntries(unique.map((id) => [id, pushed.get(id) ?? 'not_found']));
  }

  /**
   * Holds off abandonment while the verdict waits on a background check (docs/design.md: such a session is
   * not idle): the idle deadline becomes `until` (never earlier than one idle period from now), and
   * activity reports meanwhile never bring it closer. `null` releases the hold.
   */
  async hold(id: SessionId, until: Date | null): Promise<'active' | 'terminal'> {
    const idle = new Date(this.now().getTime() + this.abandonAfterMs);
    const deadline = until && until > idle ? until : idle;
    const state = await sessions.setIdleDeadline(this.pool, id, deadline);
    if (!state) throw notFound('verification session');
    return state;
  }

  async resolve(id: SessionId, body: ResolveSessionBody): Promise<VerificationSession> {
    return this.withoutLock(async () => {
      const session = await sessions.findSession(this.pool, id);
      if (!session) throw notFound('verification session');
      const config = await this.config(this.pool, session.projectId, session.configVersion);
      const updated = await this.apply(this.pool, session, { kind: 'resolve', result: filterResult(body, config) });
      return toPublicSession(updated, this.bases, this.now());
    });
  }

  /**
   * Applies one state-machine transition and queues its events, in one statement (in the caller's
   * transaction when `db` is one). The write is a compare-and-set on the status the session was read
   * with: `StaleSessionRead` when it moved meanwhile. Throws `AppError` when the state machine refuses.
   */
  async apply(
    db: Queryable,
    session: SessionRecord,
    action: SessionAction,
    extra: { redeemedAt?: Date; idleDeadline?: Date } = {},
  ): Promise<SessionRecord> {
    const now = this.now();
    let t;
    try {
      t = transition(session.status, action, now);
    } catch (error) {
      refuse(error);
    }
    let events: DomainEvent[] = [];
    // A try tells no integrator anything: its verdict is for the dashboard's page alone.
    if (t.events.length > 0 && !session.isTry) {
      // The snapshot the events carry is the row as the statement will leave it.
      const after: SessionRecord = {
        ...session,
        status: t.to,
        result: t.result ?? session.result,
        completedAt: t.completedAt,
        redeemedAt: extra.redeemedAt ?? session.redeemedAt,
        idleDeadline: extra.idleDeadline ?? session.idleDeadline,
      };
      const config = await this.config(db, session.projectId, session.configVersion);
      const snapshot = toPublicSession(after, this.bases, now);
      events = t.events.map((type) => sessionEvent(type, snapshot, session.accountId, config, now));
    }
    const updated = await sessions.applyTransition(db, session.id, t, extra, events);
    if (!updated) throw new StaleSessionRead();
    this.counters.transitions.inc({ from: t.from, to: t.to });
    return updated;
  }

  /**
   * Runs a transition without a lock: `attempt` reads the session and applies; when a concurrent
   * change (a redeem, a cancel, a timer) got there first, it reads again and the state machine
   * decides on the newer row. Only that race is retried: a refusal of the state machine is final.
   */
  private async withoutLock<T>(attempt: () => Promise<T>): Promise<T> {
    for (let tries = 1; ; tries++) {
      try {
        return await attempt();
      } catch (error) {
        if (!(error instanceof StaleSessionRead)) throw error;
        if (tries >= RACE_RETRIES) throw new AppError('conflict', 'The session is changing right now; retry shortly.');
      }
    }
  }
}
