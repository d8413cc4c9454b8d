import {
  Keyring,
  baseEnvSchema,
  brokerEnvShape,
  databaseEnvShape,
  env,
  loadConfig,
  smtpEnvShape,
  trustedProxiesEnvShape,
} from '@idv/kit';
import { hkdfSync } from 'node:crypto';
import { z } from 'zod';

const keyringSpec = z
  .string()
  .optional()
  .refine((spec) => {
    if (spec === undefined) return true;
    try {
      Keyring.parse(spec);
      return true;
    } catch {
      return false;
    }
  }, 'must be id:base64key[,id:base64key…] with 32-byte keys (the first is the active one)');

export const configSchema = baseEnvSchema
  .extend({
    PORT: env.port(8083),
    ...databaseEnvShape,
    ...brokerEnvShape,
    /**
     * Keys encrypting captured images at rest (AES-256-GCM), as `id:base64key,…`; the first seals new
     * captures, the others still open older ones (rotation). Required in production; elsewhere derived
     * from INTERNAL_TOKEN when absent.
     */
    ARTEFACT_KEYS: keyringSpec,
    /** Captured images and what was read from them are deleted this many days after capture. */
    ARTEFACT_RETENTION_DAYS: z.coerce.number().positive().default(30),
    /**
     * The evidence download audit (`evidence_downloads`: who fetched which capture, when) is kept this many
     * days, at least as long as the captures it audits (docs/decisions.md "Retention").
     */
    EVIDENCE_DOWNLOAD_RETENTION_DAYS: z.coerce.number().positive().default(365),
    /** Worker threads reading captures (each holds the barcode and OCR engines); 0 leaves reading to other replicas. */
    VERIFICATION_THREADS: z.coerce.number().int().min(0).max(32).default(1),
    /** Heap limit of each verification thread (MB): bounds one job's memory. */
    VERIFICATION_MAX_HEAP_MB: z.coerce.number().int().min(64).max(8192).default(512),
    /**
     * Young generation of each verification thread (MB). V8's own for a thread is 48 (two semi-spaces of
     * 16), which a reading fills and keeps committed; 12 (semi-spaces of 4) keeps the thread ≈ 18 MiB smaller
     * for the same collection pauses (docs/performance.md, "The reading thread's young generation").
     */
    VERIFICATION_YOUNG_GENERATION_MB: z.coerce.number().int().min(1).max(512).default(12),
    /**
     * Worker threads judging face attempts (each holds one copy of the face models, ≈ 150–260 MB); one
     * attempt's frames are spread over all of them. 0 leaves face jobs to other replicas. A pool of its
     * own beside the document readers' (docs/decisions.md).
     */
    FACE_THREADS: z.coerce.number().int().min(0).max(32).default(2),
    /** Heap limit of each face thread (MB): bounds the memory of the image it is working on. */
    FACE_MAX_HEAP_MB: z.coerce.number().int().min(128).max(8192).default(768),
    /**
     * Young generation of each face thread (MB): 12 rather than V8's own 48, as for the verification threads;
     * ≈ 12 MiB less per face thread for the same CPU (docs/performance.md, "The face threads too").
     */
    FACE_YOUNG_GENERATION_MB: z.coerce.number().int().min(1).max(512).default(12),
    /** Test mode's sample documents (catalog.json and images). */
    SAMPLES_DIR: z.string().optional(),
    SESSIONS_URL: env.url().default('http://127.0.0.1:8082'),
    /** This service's public base (the person's flow host): evidence links are `${FLOW_BASE_URL}/evidence/…`. */
    FLOW_BASE_URL: env.url().default('http://localhost:8083'),
    ...smtpEnvShape,
    /** WhatsApp Business Cloud API: POST `${WHATSAPP_API_URL}/${WHATSAPP_PHONE_NUMBER_ID}/messages`. */
    WHATSAPP_API_URL: env.url().default('https://graph.facebook.com/v21.0'),
    WHATSAPP_PHONE_NUMBER_ID: z.string().default('000000000000000'),
    WHATSAPP_TOKEN: z.string().default('unset'),
    WHATSAPP_TEMPLATE_NAME: z.string().min(1).default('verification_code'),
    WHATSAPP_TEMPLATE_LANGUAGE: z.string().min(2).default('es_AR'),
    /** Redis: the per-address throttle of link opens, shared by the replicas (fails open when Redis is down). */
    REDIS_URL: env.url(),
    ...trustedProxiesEnvShape,
    /** Per client address: link opens before the "too many attempts" page (429). */
    THROTTLE_LINK_OPENS_PER_SECOND: z.coerce.number().positive().default(5),
    THROTTLE_LINK_OPENS_BURST: z.coerce.number().int().positive().default(100),
    /** Per client address: evidence downloads (any outcome) before 429 `rate_limited`. */
    THROTTLE_EVIDENCE_DOWNLOADS_PER_SECOND: z.coerce.number().positive().default(5),
    THROTTLE_EVIDENCE_DOWNLOADS_BURST: z.coerce.number().int().positive().default(50),
    /**
     * Uploads (photos, face frames) are held in memory while they arrive and until their submission is
     * stored: at most this many MB at once in this process, and this many per client address; past
     * them a submission is answered 503 / 429 with Retry-After (docs/flow-runner.md "Uploads").
     */
    UPLOAD_MEMORY_MB: z.coerce.number().positive().default(128),
    UPLOAD_MEMORY_PER_ADDRESS_MB: z.coerce.number().positive().default(48),
    /** An upload slower than this, measured over each UPLOAD_RATE_WINDOW_MS, is cut with 408. */
    UPLOAD_MIN_BYTES_PER_SECOND: z.coerce
      .number()
      .int()
      .min(0)
      .default(8 * 1024),
    UPLOAD_RATE_WINDOW_MS: z.coerce.number().int().min(100).default(10_000),
    /** From a request's first byte to the end of its headers / of its whole body (a hard bound whatever the rate). */
    HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().positive().default(20_000),
    HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(300_000),
    /** Timeout of every outbound call (sessions service, SMTP, WhatsApp). */
    OUTBOUND_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
    /**
     * The national registry (`registryCheck` of `document_ar`): `POST ${REGISTRY_URL}/v1/identities/verify`
     * with `Authorization: Bearer ${REGISTRY_TOKEN}` (docs/documents.md). Unset: a step asking for the
     * check is rejected with document_registry_unavailable at once (docs/decisions.md).
     */
    REGISTRY_URL: env.url().optional(),
    REGISTRY_TOKEN: z.string().min(1).optional(),
    /** Whole-call timeout of one registry attempt (not scaled: it is the registry's, not the spec's). */
    REGISTRY_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
    /** How long a registry that does not answer is asked again before the step is rejected (scaled by TIME_SCALE). */
    REGISTRY_RETRY_HOURS: z.coerce.number().positive().max(168).default(24),
  })
  .superRefine((config, ctx) => {
    if (config.NODE_ENV === 'production' && !config.ARTEFACT_KEYS) {
      ctx.addIssue({ code: 'custom', path: ['ARTEFACT_KEYS'], message: 'is required in production' });
    }
    if (config.EVIDENCE_DOWNLOAD_RETENTION_DAYS < config.ARTEFACT_RETENTION_DAYS) {
      ctx.addIssue({
        code: 'custom',
        path: ['EVIDENCE_DOWNLOAD_RETENTION_DAYS'],
        message: 'must be at least ARTEFACT_RETENTION_DAYS (the audit outlives what it audits)',
      });
    }
    if (config.UPLOAD_MEMORY_PER_ADDRESS_MB > config.UPLOAD_MEMORY_MB) {
      ctx.addIssue({ code: 'custom', path: ['UPLOAD_MEMORY_PER_ADDRESS_MB'], message: 'must be at most UPLOAD_MEMORY_MB' });
    }
    if (config.HTTP_HEADERS_TIMEOUT_MS > config.HTTP_REQUEST_TIMEOUT_MS) {
      ctx.addIssue({ code: 'custom', path: ['HTTP_HEADERS_TIMEOUT_MS'], message: 'must be at most HTTP_REQUEST_TIMEOUT_MS' });
    }
    if (config.REGISTRY_URL && !config.REGISTRY_TOKEN) {
      ctx.addIssue({ code: 'custom', path: ['REGISTRY_TOKEN'], message: 'is required when REGISTRY_URL is set' });
    }
  });
export type Config = z.infer<typeof configSchema>;

export const readConfig = (source: NodeJS.ProcessEnv = process.env): Config => loadConfig(configSchema, source);

/** The binding cookie is `Secure` everywhere except local development and tests (plain http there). */
export const secureCookies = (config: Pick<Config, 'NODE_ENV'>): boolean => config.NODE_ENV === 'production';

/**
 * The key signing evidence links, derived from INTERNAL_TOKEN: only this service signs and checks them,
 * and a change of the token only cuts links that live minutes anyway.
 */
export function evidenceLinkKey(config: Pick<Config, 'INTERNAL_TOKEN'>): Buffer {
  return Buffer.from(hkdfSync('sha256', config.INTERNAL_TOKEN, 'idv-flow-runner', 'evidence-links', 32));
}

/**
 * The key face attempts' key frames are drawn with, derived from INTERNAL_TOKEN like the evidence links'
 * key: every replica draws the same frames for an attempt, and the person cannot predict them.
 */
export function faceKeyFrameKey(config: Pick<Config, 'INTERNAL_TOKEN'>): Buffer {
  return Buffer.from(hkdfSync('sha256', config.INTERNAL_TOKEN, 'idv-flow-runner', 'face-key-frames', 32));
}

/** The artefact key ring: from ARTEFACT_KEYS, or (development and tests only) derived from INTERNAL_TOKEN. */
export function artefactKeyring(config: Pick<Config, 'ARTEFACT_KEYS' | 'INTERNAL_TOKEN'>): Keyring {
  if (config.ARTEFACT_KEYS) return Keyring.parse(config.ARTEFACT_KEYS);
  return new Keyring({ dev: Buffer.from(hkdfSync('sha256', config.INTERNAL_TOKEN, 'idv-flow-runner', 'artefacts', 32)) }, 'dev');
}
