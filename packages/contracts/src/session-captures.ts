import { TimestampSchema } from './common';
import { idSchema } from './ids';
import { EVIDENCE_ARTIFACTS } from './sessions';
import { z } from './zod';

/**
 * A session's captured images as the flow-runner holds them, for the dashboard's session page (issue 41):
 * which captures there are (`GET /internal/accounts/{id}/sessions/{sessionId}/captures`), one capture's
 * image (`…/captures/{artifact}`, the decrypted bytes) and the downloads of its evidence links
 * (`…/evidence-downloads`, the person's access trail). Every route is the account's: a session of another
 * account is 404. A link's token or signature is never in an answer.
 */

/** The image types a capture is stored as; anything else is never served as an image. */
export const CAPTURE_CONTENT_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const;
export type CaptureContentType = (typeof CAPTURE_CONTENT_TYPES)[number];

export const SessionCaptureParamsSchema = z.object({
  id: idSchema('account'),
  sessionId: idSchema('session'),
  artifact: z.enum(EVIDENCE_ARTIFACTS),
});

export const SessionCaptureSchema = z.object({
  artifact: z.enum(EVIDENCE_ARTIFACTS),
  content_type: z.enum(CAPTURE_CONTENT_TYPES),
  captured_at: TimestampSchema,
});
export type SessionCapture = z.infer<typeof SessionCaptureSchema>;

/** The latest capture of each artifact, in `EVIDENCE_ARTIFACTS` order; none once retention removed them. */
export const SessionCapturesSchema = z.object({
  object: z.literal('list'),
  session_id: idSchema('session'),
  data: z.array(SessionCaptureSchema),
  /** When retention removed the flow's document data (its captures went with it or before); null while kept. */
  data_removed_at: TimestampSchema.nullable(),
});
export type SessionCaptures = z.infer<typeof SessionCapturesSchema>;

/** How an evidence link's download ended: the image sent, or refused (a link past its time, a signature that does not match). */
export const EVIDENCE_DOWNLOAD_OUTCOMES = ['served', 'expired', 'bad_signature'] as const;
export type EvidenceDownloadOutcome = (typeof EVIDENCE_DOWNLOAD_OUTCOMES)[number];

export const EvidenceDownloadSchema = z.object({
  at: TimestampSchema,
  artifact: z.enum(EVIDENCE_ARTIFACTS),
  outcome: z.enum(EVIDENCE_DOWNLOAD_OUTCOMES),
  /** The address the download came from (as the flow-runner's trusted proxies tell it). */
  client_address: z.string().max(64),
});
export type EvidenceDownload = z.infer<typeof EvidenceDownloadSchema>;

/** Up to `limit` downloads of a session's evidence links, newest first. */
export const EvidenceDownloadsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(1000),
});

export const EvidenceDownloadsSchema = z.object({
  object: z.literal('list'),
  session_id: idSchema('session'),
  data: z.array(EvidenceDownloadSchema),
  has_more: z.boolean(),
});
export type EvidenceDownloads = z.infer<typeof EvidenceDownloadsSchema>;
