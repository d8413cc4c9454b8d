import { createHash } from 'node:crypto';
import { ulid } from 'ulid';
import { pooledRandomByte } from './random-pool';
import { z } from './zod';

export const ID_PREFIXES = {
  account: 'acc_',
  project: 'prj_',
  session: 'vs_',
  webhookEndpoint: 'whep_',
  webhookDelivery: 'whd_',
  /** A retry of an endpoint's failed deliveries in a time range (the dashboard's "retry failed deliveries"). */
  webhookRetry: 'whrt_',
  event: 'evt_',
  apiKey: 'key_',
  linkToken: 'lt_',
  registryCheck: 'rgc_',
  /** A person who signs in to the dashboard (an owner, member or operator). */
  user: 'usr_',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;
export type AccountId = `acc_${string}`;
export type ProjectId = `prj_${string}`;
export type SessionId = `vs_${string}`;
export type WebhookEndpointId = `whep_${string}`;
export type WebhookDeliveryId = `whd_${string}`;
export type WebhookRetryId = `whrt_${string}`;
export type EventId = `evt_${string}`;
export type ApiKeyId = `key_${string}`;
export type UserId = `usr_${string}`;
export type ConfigVersionId = `cfg_${string}`;
/** One registry check of a session's step, the same for each of its attempts (the registry's idempotency key). */
export type RegistryCheckId = `rgc_${string}`;

/** The prefixed id type of a kind: `IdOf<'session'>` is `SessionId`. */
export type IdOf<K extends IdKind> = `${(typeof ID_PREFIXES)[K]}${string}`;

/**
 * A string already checked as an id of this kind (by a contract schema, or read from our own
 * database), given its prefixed type. Only the prefix is checked again: a wrong one is a programming
 * error, not a bad request.
 */
export function asId<K extends IdKind>(kind: K, value: string): IdOf<K> {
  if (!value.startsWith(ID_PREFIXES[kind])) throw new RangeError(`not an id of kind ${kind}`);
  return value as IdOf<K>;
}

const ULID_PATTERN = '[0-9A-HJKMNP-TV-Z]{26}';

/**
 * Cryptographic randomness for ULIDs, drawn from the shared 4 KiB pool (random-pool.ts): the library's default
 * asks the crypto API once per character (~30 µs an id), which showed up on the gateway's hot path.
 */
const pooledRandom = (): number => pooledRandomByte() / 256;

/** A ULID (time-sortable, 80 random bits) drawn from the pooled random source. */
export function fastUlid(): string {
  return ulid(undefined, pooledRandom);
}

export function newId<K extends IdKind>(kind: K): IdOf<K> {
  return `${ID_PREFIXES[kind]}${fastUlid()}` as IdOf<K>;
}

const ID_PATTERNS = Object.fromEntries(
  Object.entries(ID_PREFIXES).map(([kind, prefix]) => [kind, new RegExp(`^${prefix}${ULID_PATTERN}$`)]),
) as Record<IdKind, RegExp>;

/** The pattern of an id of this kind (one compiled expression per kind, shared: it has no `g` flag). */
export function idPattern(kind: IdKind): RegExp {
  return ID_PATTERNS[kind];
}

/** Whether a value is an id of this kind; where it is, it has the kind's prefixed type. */
export function isId<K extends IdKind>(kind: K, value: unknown): value is IdOf<K> {
  return typeof value === 'string' && ID_PATTERNS[kind].test(value);
}

/**
 * Zod schema of an id of the given kind, e.g. `idSchema('session')` accepts `vs_<ULID>` and gives a
 * `SessionId`: what a route, a response or an event parses with it is typed from there on. The cast only
 * names the output type; the schema is the plain pattern the OpenAPI document describes.
 */
export function idSchema<K extends IdKind>(kind: K) {
  return z
    .string()
    .regex(idPattern(kind), `must be an id of shape ${ID_PREFIXES[kind]}<ULID>`)
    .openapi({ example: `${ID_PREFIXES[kind]}01JD3Z8Q5X8R0VQ1T7W9Y2K4M6` }) as unknown as z.ZodType<IdOf<K>, string>;
}

/**
 * Artefacts (the person's captures and what is derived from them) have ids of one shape, written by the
 * flow-runner when it stores them and checked wherever one comes back (evidence links, jobs):
 * `art_<ULID>` for a capture, `art_<ULID>_<derived>` for what a job derives from it (the face step's best
 * live frame, the portrait cropped from a document's front). A derived id is its source's plus a suffix
 * so that a redelivered job replaces the same row instead of adding one.
 */
export type ArtefactId = `art_${string}`;
export const DERIVED_ARTEFACTS = ['selfie', 'portrait'] as const;
export type DerivedArtefact = (typeof DERIVED_ARTEFACTS)[number];
const ARTEFACT_PREFIX = 'art_';
export const ARTEFACT_ID_PATTERN = new RegExp(`^${ARTEFACT_PREFIX}${ULID_PATTERN}(?:_(?:${DERIVED_ARTEFACTS.join('|')}))?$`);
const SOURCE_ARTEFACT_ID_PATTERN = new RegExp(`^${ARTEFACT_PREFIX}${ULID_PATTERN}$`);

export function newArtefactId(): ArtefactId {
  return `${ARTEFACT_PREFIX}${fastUlid()}`;
}

/** The id of what a job derives from a capture; a derived artefact has nothing derived from it. */
export function derivedArtefactId(sourceId: string, derived: DerivedArtefact): ArtefactId {
  if (!SOURCE_ARTEFACT_ID_PATTERN.test(sourceId)) throw new RangeError(`not a capture's artefact id: ${sourceId}`);
  return `${sourceId as ArtefactId}_${derived}`;
}

export function isArtefactId(value: unknown): value is ArtefactId {
  return typeof value === 'string' && ARTEFACT_ID_PATTERN.test(value);
}

/** Zod schema of an artefact id (a capture's or a derived one); its output is an `ArtefactId`. */
export function artefactIdSchema() {
  return z
    .string()
    .refine(isArtefactId, `must be an artefact id of shape ${ARTEFACT_PREFIX}<ULID>[_${DERIVED_ARTEFACTS.join('|_')}]`)
    .openapi({ example: `${ARTEFACT_PREFIX}01JD3Z8Q5X8R0VQ1T7W9Y2K4M6` });
}

/**
 * A session's link token: `lt_` and URL-safe characters. New tokens are `lt_` + a ULID; tokens of the
 * older 192-bit shape stay valid until they expire, so the shape is not narrowed to the ULID. The one
 * pattern every service checks a token with (the sessions API, the QR images, the person's pages).
 */
export const LINK_TOKEN_PATTERN = /^lt_[A-Za-z0-9_-]+$/;

/** No token we issue comes near it; a longer one is refused before it is hashed and looked up. */
export const LINK_TOKEN_MAX_LENGTH = 200;

export function isLinkToken(value: unknown): value is string {
  return typeof value === 'string' && value.length <= LINK_TOKEN_MAX_LENGTH && LINK_TOKEN_PATTERN.test(value);
}

/** A hand-over code's token (the person's flow moving to a phone): `ho_` + 256 random bits, base64url. */
export const HANDOVER_TOKEN_PATTERN = /^ho_[A-Za-z0-9_-]{43}$/;

export function isHandoverToken(value: unknown): value is string {
  return typeof value === 'string' && HANDOVER_TOKEN_PATTERN.test(value);
}

/** Zod schema of a link token. */
export function linkTokenSchema() {
  return z.string().regex(LINK_TOKEN_PATTERN);
}

/** Event ids are derived, not drawn: `evt_` and 32 hex digits of a digest (see `eventId`). */
export const EVENT_ID_PATTERN = /^evt_[0-9a-f]{32}$/;

/**
 * Deterministic event id: the same logical event (account, session, type) gets the same id in every
 * retry and for every endpoint, so receivers can deduplicate on it (docs/design.md "Ids, time and knobs").
 */
export function eventId(accountId: string, sessionId: string, eventType: string): EventId {
  const digest = createHash('sha256').update(`${accountId}|${sessionId}|${eventType}`).digest('hex');
  return `evt_${digest.slice(0, 32)}`;
}

export const CONFIG_VERSION_PATTERN = /^cfg_\d{8}$/;

export function configVersionId(version: number): ConfigVersionId {
  if (!Number.isInteger(version) || version < 1 || version > 99_999_999) {
    throw new RangeError(`config version out of range: ${version}`);
  }
  return `cfg_${String(version).padStart(8, '0')}`;
}

/**
 * The version a try of a draft shows (the dashboard's "Try it"): a draft is no publication, and the
 * published versions are numbered from 1, so this one is never taken by a publication.
 */
export const DRAFT_CONFIG_VERSION: ConfigVersionId = 'cfg_00000000';

export function parseConfigVersion(id: string): number | null {
  return CONFIG_VERSION_PATTERN.test(id) ? Number(id.slice(4)) : null;
}
