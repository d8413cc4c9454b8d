import { TimestampSchema } from './common';
import { idSchema } from './ids';
import { z } from './zod';

/**
 * A session's timeline as the flow-runner records it (`GET /internal/accounts/{id}/sessions/{sessionId}/timeline`,
 * the dashboard's session page): what happened in the person's flow, in order, with times. Entries name
 * steps, captures, channels, outcomes and reason codes, never personal data: no document field, no
 * e-mail address or phone number, no code, no image, no network address, no user agent.
 * "created" and "resolved" come from the sessions service, the webhook attempts from the webhooks service.
 */

/**
 * - `link_opened`: the person opened the session's link (the flow starts), with the device's class.
 * - `handed_over`: the flow moved to another device (a camera page's QR code), with that device's class.
 * - `step_started`: a step became the one the person is on (the next page shows it); once per step.
 * - `step_decided`: a step's verdict (`approved`, `rejected`, `skipped`) with its reason codes.
 * - `capture_uploaded`: a document side or a face attempt's frames were stored to be read (`attempt`).
 * - `capture_read`: what the reading made of it (`result`), its `reason` and the message the person saw.
 * - `code_sent`, `code_resent`: a one-time code left (test mode: the send was counted, nothing left);
 *   `code_send_failed`: the provider refused it (the send is given back); `code_wrong`: a wrong code
 *   (`attempt` = wrong codes so far); `code_verified`.
 * - `registry_check_queued`: the document passed its own checks and waits on the national registry;
 *   `registry_check_attempted`: one call's `outcome` (`unavailable` with `retry_at` when asked again).
 * - `flow_decided`: the flow's own verdict (`verdict`, `reason_codes`), before the sessions service takes it.
 */
export const TIMELINE_KINDS = [
  'link_opened',
  'handed_over',
  'step_started',
  'step_decided',
  'capture_uploaded',
  'capture_read',
  'code_sent',
  'code_resent',
  'code_send_failed',
  'code_wrong',
  'code_verified',
  'registry_check_queued',
  'registry_check_attempted',
  'flow_decided',
] as const;
export type TimelineKind = (typeof TIMELINE_KINDS)[number];

/** A device told from its User-Agent: the header itself is never kept. */
export const DEVICE_CLASSES = ['phone', 'tablet', 'desktop', 'unknown'] as const;
export type DeviceClass = (typeof DEVICE_CLASSES)[number];

/** What is read: a document side, or a face attempt's frames. */
export const TIMELINE_CAPTURES = ['front', 'back', 'front_angle', 'face_frames'] as const;
export type TimelineCapture = (typeof TIMELINE_CAPTURES)[number];

/** A reading's result for the person: taken, asked for again (attempts left), or refused (the step failed). */
export const CAPTURE_READ_RESULTS = ['accepted', 'asked_again', 'refused'] as const;
export type CaptureReadResult = (typeof CAPTURE_READ_RESULTS)[number];

export const TIMELINE_VERDICTS = ['approved', 'rejected', 'skipped'] as const;
export const TIMELINE_CHANNELS = ['email', 'whatsapp'] as const;
/** The registry's answer to one call: definite (`match`, `mismatch`, `not_found`) or not (`unavailable`). */
export const REGISTRY_OUTCOMES = ['match', 'mismatch', 'not_found', 'unavailable'] as const;

/** Codes and keys: lower-case words with `_` (a message key has `.` between its parts). */
const CODE = /^[a-z][a-z0-9_]{0,63}$/;
const MESSAGE_KEY = /^[a-zA-Z][a-zA-Z0-9_.]{0,127}$/;

export const TimelineEntrySchema = z.object({
  /** Increasing with the order of the entries: the `after` cursor of the next page. */
  id: z.string().regex(/^\d{1,19}$/),
  at: TimestampSchema,
  kind: z.enum(TIMELINE_KINDS),
  /** The step's id in the frozen configuration (`consent` for the platform's consent). */
  step_id: z.string().max(64).optional(),
  /** `consent`, `form`, `choice`, `document_ar`, `face_liveness`, `otp_email`, `otp_whatsapp`. */
  step_type: z.string().regex(CODE).optional(),
  /** Which try: of a capture (per side or per face step), of a code sent or wrong, of a registry call. */
  attempt: z.number().int().min(0).optional(),
  /** `step_decided` and `flow_decided`. */
  verdict: z.enum(TIMELINE_VERDICTS).optional(),
  reason_codes: z.array(z.string().regex(CODE)).optional(),
  capture: z.enum(TIMELINE_CAPTURES).optional(),
  /** `capture_uploaded` of a face attempt: the camera challenge or the two-photo fallback. */
  method: z.enum(['camera', 'upload']).optional(),
  result: z.enum(CAPTURE_READ_RESULTS).optional(),
  /** Why a capture was asked for again or refused (`blurry`, `face_not_found`, `expired`, `unjudged`…). */
  reason: z.string().regex(CODE).optional(),
  /** The key of the message the person was shown in the flow's i18n (`document.problems.blurry`); what is stored. */
  message_key: z.string().regex(MESSAGE_KEY).optional(),
  /**
   * The text of `message_key` in the `locale` the read asked for, as the flow's pages show it: added when the
   * timeline is read with a `locale`, never stored (the catalogue stays the flow-runner's).
   */
  message: z.string().max(2000).optional(),
  device: z.enum(DEVICE_CLASSES).optional(),
  channel: z.enum(TIMELINE_CHANNELS).optional(),
  outcome: z.enum(REGISTRY_OUTCOMES).optional(),
  /** Why the registry gave no definite answer (`status_503`, `timeout`…), never what was asked. */
  cause: z.string().max(64).optional(),
  /** When an `unavailable` registry is asked again. */
  retry_at: TimestampSchema.optional(),
});
export type TimelineEntry = z.infer<typeof TimelineEntrySchema>;

/** The languages the flow's messages are written in (Argentine Spanish first). */
export const TIMELINE_LOCALES = ['es', 'en'] as const;
export type TimelineLocale = (typeof TIMELINE_LOCALES)[number];

/** Oldest first, up to `limit` entries after the `after` entry. */
export const FlowTimelineQuerySchema = z.object({
  after: z
    .string()
    .regex(/^\d{1,18}$/)
    .optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(1000),
  /** The reader's language: each entry with a `message_key` then carries its `message` in it. */
  locale: z.enum(TIMELINE_LOCALES).optional(),
});
export type FlowTimelineQuery = z.infer<typeof FlowTimelineQuerySchema>;

export const FlowTimelineSchema = z.object({
  object: z.literal('list'),
  session_id: idSchema('session'),
  data: z.array(TimelineEntrySchema),
  has_more: z.boolean(),
});
export type FlowTimeline = z.infer<typeof FlowTimelineSchema>;
