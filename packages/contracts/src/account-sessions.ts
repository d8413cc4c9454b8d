import { TimestampSchema } from './common';
import { idSchema } from './ids';
import { InternalSessionSchema, ModeSchema, OUTCOMES, SESSION_STATUSES } from './sessions';
import { storableString } from './text';
import { WebhookDeliverySchema } from './webhooks';
import { z } from './zod';

/** A reason code as the flow-runner writes them (`document_expired`, `face_mismatch`, …). */
export const REASON_CODE_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * The dashboard's sessions list: one mode at a time, every filter optional, newest first by a cursor.
 * `created_from` is inclusive and `created_to` exclusive, so consecutive days do not overlap.
 */
export const AccountSessionsQuerySchema = z
  .object({
    mode: ModeSchema.default('live'),
    status: z.enum(SESSION_STATUSES).optional(),
    outcome: z.enum(OUTCOMES).optional(),
    reason_code: z.string().regex(REASON_CODE_PATTERN).optional(),
    project_id: idSchema('project').optional(),
    external_ref: storableString().min(1).max(255).optional(),
    created_from: TimestampSchema.optional(),
    created_to: TimestampSchema.optional(),
    cursor: z.string().max(512).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(50),
  })
  .refine((query) => !query.created_from || !query.created_to || query.created_from < query.created_to, {
    message: 'created_from must be before created_to',
    path: ['created_to'],
  });
export type AccountSessionsQuery = z.infer<typeof AccountSessionsQuerySchema>;

/** A row of the sessions list: states and references, never personal data. */
export const AccountSessionSummarySchema = z.object({
  id: idSchema('session'),
  mode: ModeSchema,
  status: z.enum(SESSION_STATUSES),
  project_id: idSchema('project'),
  external_ref: z.string().nullable(),
  outcome: z.enum(OUTCOMES).nullable(),
  reason_codes: z.array(z.string()),
  created_at: TimestampSchema,
  completed_at: TimestampSchema.nullable(),
});
export type AccountSessionSummary = z.infer<typeof AccountSessionSummarySchema>;

export const AccountSessionListSchema = z.object({
  object: z.literal('list'),
  data: z.array(AccountSessionSummarySchema),
  has_more: z.boolean(),
  next_cursor: z.string().optional(),
});
export type AccountSessionList = z.infer<typeof AccountSessionListSchema>;

/**
 * One session of an account as the dashboard's session page reads it: the internal session (its frozen
 * configuration says what personal data it may show) with the key that created it.
 */
export const AccountSessionSchema = InternalSessionSchema.extend({
  api_key_id: idSchema('apiKey').nullable(),
});
export type AccountSession = z.infer<typeof AccountSessionSchema>;

/** A session's delivery attempts to every endpoint, oldest first (its timeline's part from the webhooks service). */
export const SessionWebhookDeliveriesSchema = z.object({
  object: z.literal('list'),
  data: z.array(WebhookDeliverySchema),
  has_more: z.boolean(),
});
export type SessionWebhookDeliveries = z.infer<typeof SessionWebhookDeliveriesSchema>;
