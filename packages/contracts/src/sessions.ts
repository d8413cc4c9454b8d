import { TimestampSchema, listSchema } from './common';
import { FlowConfigSchema, type FlowConfig } from './flow-config';
import { CONFIG_VERSION_PATTERN, idSchema } from './ids';
import { characterCount, storableString } from './text';
import { z } from './zod';

export const MODES = ['test', 'live'] as const;
export type Mode = (typeof MODES)[number];
export const ModeSchema = z.enum(MODES);

export const SESSION_STATUSES = ['pending', 'in_progress', 'approved', 'rejected', 'expired', 'abandoned', 'canceled'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];
export const TERMINAL_STATUSES: readonly SessionStatus[] = ['approved', 'rejected', 'expired', 'abandoned', 'canceled'];

export const OUTCOMES = ['approved', 'rejected', 'expired', 'abandoned'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const STEP_VERDICTS = ['approved', 'rejected', 'skipped', 'not_reached'] as const;
export type StepVerdict = (typeof STEP_VERDICTS)[number];

export const ConfigVersionSchema = z.string().regex(CONFIG_VERSION_PATTERN).openapi({ example: 'cfg_00000001' });

export const StepResultSchema = z.object({ id: z.string(), type: z.string(), verdict: z.enum(STEP_VERDICTS) });
export type StepResult = z.infer<typeof StepResultSchema>;

export const DocumentDataSchema = z
  .object({
    doc_type: z.string(),
    series: z.string(),
    number: z.string(),
    surname: z.string(),
    given_names: z.string(),
    sex: z.string(),
    birth_date: z.string(),
    cuil: z.string(),
    expiry_date: z.string(),
  })
  .openapi('DocumentData');
export type DocumentData = z.infer<typeof DocumentDataSchema>;

export const VerifiedChannelsSchema = z
  .object({ email: z.string().optional(), phone: z.string().optional() })
  .openapi('VerifiedChannels');

export const SessionResultSchema = z
  .object({
    outcome: z.enum(OUTCOMES),
    reason_codes: z.array(z.string()),
    steps: z.array(StepResultSchema),
    document: DocumentDataSchema.optional(),
    document_removed_at: TimestampSchema.optional().openapi({
      description:
        'Set when `document` was removed at the end of its retention period (30 days after completion by default): the data was there and is gone, rather than never collected.',
    }),
    verified_channels: VerifiedChannelsSchema.optional(),
    form_data: z.record(z.string(), z.string()).optional(),
  })
  .openapi('SessionResult');
export type SessionResult = z.infer<typeof SessionResultSchema>;

/** The captures an evidence link can point at: the document's sides and the face step's best live frame. */
export const EVIDENCE_ARTIFACTS = ['front', 'back', 'front_angle', 'selfie'] as const;
export type EvidenceArtifact = (typeof EVIDENCE_ARTIFACTS)[number];

export const EvidenceLinkSchema = z
  .object({
    artifact: z.enum(EVIDENCE_ARTIFACTS),
    url: z.string().openapi({
      description:
        'Signed download of the latest capture of this artifact (an image, served with `Cache-Control: no-store`); every download is logged.',
    }),
    expires_at: TimestampSchema,
  })
  .openapi('EvidenceLink', {
    description: 'Generated when the session is sent (GET answer or webhook attempt) and valid 5 minutes.',
  });
export type EvidenceLink = z.infer<typeof EvidenceLinkSchema>;

export const VerificationSessionSchema = z
  .object({
    id: idSchema('session'),
    object: z.literal('verification_session'),
    status: z.enum(SESSION_STATUSES),
    mode: ModeSchema,
    project_id: idSchema('project'),
    config_version: ConfigVersionSchema,
    url: z.string().optional(),
    qr: z.object({ svg: z.string(), png: z.string() }).optional(),
    expires_at: TimestampSchema.optional(),
    created_at: TimestampSchema,
    external_ref: z.string().optional(),
    result: SessionResultSchema.optional(),
    completed_at: TimestampSchema.optional(),
    evidence_links: z.array(EvidenceLinkSchema).optional().openapi({
      description:
        'Only when the frozen configuration has `evidenceLinks`: one signed link per captured artifact (the latest capture of each), generated when this answer or webhook attempt is made; empty before any capture. Absent from the creation response.',
    }),
  })
  .openapi('VerificationSession');
export type VerificationSession = z.infer<typeof VerificationSessionSchema>;

export const SessionListSchema = listSchema(VerificationSessionSchema, 'VerificationSessionList');

export const EXPIRES_IN_HOURS = { min: 1, max: 168, default: 24 } as const;

export const CreateSessionBodySchema = z
  .strictObject({
    project_id: idSchema('project'),
    external_ref: storableString().min(1).max(255).optional(),
    expires_in_hours: z.number().int().min(EXPIRES_IN_HOURS.min).max(EXPIRES_IN_HOURS.max).default(EXPIRES_IN_HOURS.default),
  })
  .openapi('CreateVerificationSession');
export type CreateSessionBody = z.infer<typeof CreateSessionBodySchema>;

/** 1 to 255 characters (code points, not bytes or UTF-16 units), as the spec counts them. */
export const IdempotencyKeySchema = storableString().refine((key) => {
  const length = characterCount(key);
  return length >= 1 && length <= 255;
}, 'must be 1 to 255 characters');

export const UsageSchema = z
  .object({
    object: z.literal('usage'),
    month: z.string(),
    sessions: z.object({
      test: z.record(z.string(), z.number().int()),
      live: z.record(z.string(), z.number().int()),
    }),
    tokens_debited: z.number().int(),
  })
  .openapi('Usage');
export type Usage = z.infer<typeof UsageSchema>;

/** What the sessions service tells other services about a session (never exposed publicly). */
export const InternalSessionSchema = VerificationSessionSchema.extend({
  account_id: idSchema('account'),
  /** The frozen configuration the session is bound to, consent step not included. */
  config: z.record(z.string(), z.unknown()),
  redeemed_at: TimestampSchema.nullable(),
  /** Present on a try of a draft (the dashboard's "Try it"): never public, no webhook, no debit. */
  try: z.literal(true).optional(),
});
export type InternalSession = Omit<z.infer<typeof InternalSessionSchema>, 'config'> & { config: FlowConfig };

/** The flow-runner's verdict, sent to the sessions service (`POST /internal/sessions/{id}/resolve`). */
export const ResolveSessionBodySchema = z.strictObject({
  outcome: z.enum(['approved', 'rejected']),
  reason_codes: z.array(z.string().regex(/^[a-z0-9_]{1,64}$/)).max(50),
  steps: z.array(StepResultSchema).max(100),
  document: DocumentDataSchema.optional(),
  verified_channels: VerifiedChannelsSchema.optional(),
  form_data: z.record(z.string(), z.string().max(2000)).optional(),
});
export type ResolveSessionBody = z.infer<typeof ResolveSessionBodySchema>;

/** Most sessions one activity report may name. */
export const ACTIVITY_REPORT_MAX = 100;

/**
 * The flow-runner's activity report (`POST /internal/sessions/activity`): the sessions whose person
 * just submitted a step. Reports of concurrent submissions travel together.
 */
export const ActivityReportBodySchema = z.strictObject({
  session_ids: z.array(idSchema('session')).min(1).max(ACTIVITY_REPORT_MAX),
});
export type ActivityReportBody = z.infer<typeof ActivityReportBodySchema>;

/** Per session: `active` (idle deadline pushed), `terminal` (it already ended) or `not_found`. */
export const ACTIVITY_STATES = ['active', 'terminal', 'not_found'] as const;
export type ActivityState = (typeof ACTIVITY_STATES)[number];
export const ActivityReportResultSchema = z.object({
  sessions: z.record(z.string(), z.enum(ACTIVITY_STATES)),
});
export type ActivityReportResult = z.infer<typeof ActivityReportResultSchema>;

/**
 * The flow-runner's hold on abandonment (`POST /internal/sessions/{id}/hold`) while the session's
 * verdict waits on a background check (the registry): `until` keeps the session from being abandoned
 * up to that instant whatever the person does; `null` releases the hold (the idle period starts again
 * now). Answers `{state}` as an activity report does.
 */
export const HoldSessionBodySchema = z.strictObject({
  until: TimestampSchema.nullable(),
});
export type HoldSessionBody = z.infer<typeof HoldSessionBodySchema>;
export const HoldSessionResultSchema = z.object({ state: z.enum(['active', 'terminal']) });
export type HoldSessionResult = z.infer<typeof HoldSessionResultSchema>;

/**
 * `data` of every `verification_session.*` domain event on the broker: the session snapshot (result
 * already filtered by the frozen config's opt-in options) plus what the webhooks service needs to
 * fan out without asking anyone: the frozen `webhookEvents` and options.
 */
export const SessionEventDataSchema = z.object({
  account_id: idSchema('account'),
  session: VerificationSessionSchema,
  webhook_events: z.array(z.string()),
  options: z.object({
    documentData: z.boolean(),
    verifiedChannels: z.boolean(),
    formData: z.boolean(),
    evidenceLinks: z.boolean(),
  }),
});
export type SessionEventData = z.infer<typeof SessionEventDataSchema>;

/** Flow-runner internal: fresh evidence links of up to 100 sessions (the callers already checked ownership). */
export const EVIDENCE_LINKS_BATCH_MAX = 100;
export const EvidenceLinksBodySchema = z.strictObject({
  session_ids: z.array(idSchema('session')).min(1).max(EVIDENCE_LINKS_BATCH_MAX),
});
export type EvidenceLinksBody = z.infer<typeof EvidenceLinksBodySchema>;
/** One entry per asked session; a session with no capture (or an unknown one) has an empty list. */
export const EvidenceLinksResultSchema = z.object({
  sessions: z.record(z.string(), z.array(EvidenceLinkSchema)),
});
export type EvidenceLinksResult = z.infer<typeof EvidenceLinksResultSchema>;

/** Internal (operator) operations of the sessions service: projects, configuration versions, balance. */
export const ProjectSchema = z.object({
  id: idSchema('project'),
  object: z.literal('project'),
  account_id: idSchema('account'),
  name: z.string(),
  created_at: TimestampSchema,
});
export type Project = z.infer<typeof ProjectSchema>;

/** A project with where each mode points (the dashboard's list of projects). */
export const ProjectOverviewSchema = ProjectSchema.extend({
  test_version: ConfigVersionSchema.nullable(),
  live_version: ConfigVersionSchema.nullable(),
  last_version: ConfigVersionSchema.nullable(),
});
export type ProjectOverview = z.infer<typeof ProjectOverviewSchema>;

/** One frozen configuration version: the mode it was published to, when, and the configuration itself. */
export const ConfigVersionEntrySchema = z.object({
  id: ConfigVersionSchema,
  project_id: idSchema('project'),
  mode: ModeSchema,
  created_at: TimestampSchema,
  config: z.record(z.string(), z.unknown()),
});
export type ConfigVersionEntry = z.infer<typeof ConfigVersionEntrySchema>;

export const RenameProjectBodySchema = z.strictObject({ name: z.string().trim().min(1).max(200) });

export const CreateProjectBodySchema = z.strictObject({
  account_id: idSchema('account'),
  name: z.string().min(1).max(200),
});

export const PublishConfigBodySchema = z.strictObject({ mode: ModeSchema, config: FlowConfigSchema });

/** The dashboard's "Try it": a test session on the project's draft, without publishing it. */
export const CreateTrySessionBodySchema = z.strictObject({ account_id: idSchema('account'), config: FlowConfigSchema });

export const PublishedConfigSchema = z.object({
  id: ConfigVersionSchema,
  project_id: idSchema('project'),
  mode: ModeSchema,
});
export type PublishedConfig = z.infer<typeof PublishedConfigSchema>;

export const CreditBalanceBodySchema = z.strictObject({
  tokens: z.number().int().positive().max(1_000_000_000),
  /** Why the tokens were credited (the operator's words), kept with the ledger entry. */
  reason: z.string().trim().min(1).max(500).optional(),
});

export const BalanceSchema = z.object({ account_id: idSchema('account'), balance: z.number().int() });
export type Balance = z.infer<typeof BalanceSchema>;

/** One movement of an account's tokens: a credit with its reason, or a session's debit. */
export const LedgerEntrySchema = z.object({
  id: z.number().int().positive(),
  kind: z.enum(['credit', 'debit']),
  tokens: z.number().int().positive(),
  reason: z.string().nullable(),
  session_id: idSchema('session').nullable(),
  created_at: TimestampSchema,
});
export type LedgerEntry = z.infer<typeof LedgerEntrySchema>;

/** A page of an account's ledger, newest first (older ones by `before`, the last id shown). */
export const BalanceLedgerQuerySchema = z.object({
  before: z.coerce.number().int().positive().optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

/** An account's balance, the tokens its sessions took in the last 7 days (the forecast's rate), and a page of its ledger. */
export const BalanceLedgerSchema = z.object({
  account_id: idSchema('account'),
  balance: z.number().int(),
  debited_last_7_days: z.number().int().min(0),
  /** The owner's low-balance threshold in tokens; null: the default is in force. */
  threshold: z.number().int().positive().nullable(),
  /** The default threshold: 3 days of use at the last 7 days' pace, rounded up (0: no pace, only zero is alerted). */
  default_threshold: z.number().int().min(0),
  data: z.array(LedgerEntrySchema),
  has_more: z.boolean(),
});
export type BalanceLedger = z.infer<typeof BalanceLedgerSchema>;

/** The most tokens a low-balance threshold may be (the largest credit). */
export const MAX_BALANCE_THRESHOLD = 1_000_000_000;

/** The owner's low-balance threshold in tokens, or null to go back to the default (3 days of use). */
export const SetBalanceThresholdBodySchema = z.strictObject({
  tokens: z.number().int().min(1).max(MAX_BALANCE_THRESHOLD).nullable(),
});

/** An account's low-balance threshold: the owner's (null: none) and the default in force without it. */
export const BalanceThresholdSchema = z.object({
  account_id: idSchema('account'),
  threshold: z.number().int().positive().nullable(),
  default_threshold: z.number().int().min(0),
});
export type BalanceThreshold = z.infer<typeof BalanceThresholdSchema>;

/**
 * What the sessions service says about an account going live, in one answer (the dashboard's home
 * page): its projects with a live configuration published, and its balance of tokens.
 */
export const FlowReadinessSchema = z.object({
  account_id: idSchema('account'),
  live_projects: z.number().int().min(0),
  balance: z.number().int(),
});
export type FlowReadiness = z.infer<typeof FlowReadinessSchema>;
