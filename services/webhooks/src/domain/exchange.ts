import type { EvidenceLink } from '@idv/contracts';
import { buildEnvelope } from './envelope';

/** How much of the receiver's body the delivery log keeps (issue 41: "the first 4 KB"). */
export const RESPONSE_BODY_LIMIT = 4096;
/** The receiver's headers kept, and the size of each value: a header flood cannot fill the log. */
export const RESPONSE_HEADERS_LIMIT = 64;
export const HEADER_VALUE_LIMIT = 1024;

/** What came back from the receiver, as the delivery log keeps it. */
export interface ReceivedReply {
  headers: Record<string, string>;
  /** The first RESPONSE_BODY_LIMIT bytes at most, as text (see `bodyPrefix`). */
  body: string;
  /** The size of the whole body read, in bytes. */
  bodyBytes: number;
}

/** One attempt's request as sent, and the reply when one came (null: refused, reset, timed out before headers). */
export interface AttemptExchange {
  /** The moment of sending: the envelope's `created_at` and the signature's timestamp. */
  sentAt: Date;
  requestHeaders: Record<string, string>;
  /** The evidence links this attempt carried (made per attempt), null when the event carries none. */
  evidenceLinks: EvidenceLink[] | null;
  reply: ReceivedReply | null;
}

const REPLACEMENT = '\uFFFD';
const decoder = new TextDecoder('utf-8', { fatal: false });

/** Text PostgreSQL can store: it refuses NUL in `text`. */
const storable = (text: string) => text.replaceAll('\u0000', REPLACEMENT);

/**
 * The first `limit` bytes of a body as text, cut before a UTF-8 character the limit would split (so the
 * last character is never a replacement for half of one); bytes that are not UTF-8 at all read as U+FFFD.
 */
export function bodyPrefix(bytes: Uint8Array, limit = RESPONSE_BODY_LIMIT): string {
  let end = Math.min(bytes.length, limit);
  if (end < bytes.length) {
    // bytes[end] is the first byte left out: while it continues a character, that character is cut.
    let back = 0;
    while (end > 0 && back < 3 && ((bytes[end] ?? 0) & 0xc0) === 0x80) {
      end -= 1;
      back += 1;
    }
  }
  return storable(decoder.decode(bytes.subarray(0, end)));
}

/** The receiver's headers as kept: names in lower case, repeated ones joined, at most the limits above. */
export function keptHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers).slice(0, RESPONSE_HEADERS_LIMIT)) {
    if (value === undefined) continue;
    const joined = Array.isArray(value) ? value.join(', ') : value;
    kept[storable(name.toLowerCase())] = storable(joined.slice(0, HEADER_VALUE_LIMIT));
  }
  return kept;
}

/**
 * The body an attempt POSTed, rebuilt: the same event object (with that attempt's evidence links when it
 * carried some) and the same moment make the same bytes, so the signature in its headers verifies on it.
 */
export function sentBody(
  event: { id: string; type: Parameters<typeof buildEnvelope>[0]['type']; data: Record<string, unknown> },
  exchange: Pick<AttemptExchange, 'sentAt' | 'evidenceLinks'>,
): string {
  const object = exchange.evidenceLinks ? { ...event.data, evidence_links: exchange.evidenceLinks } : event.data;
  return buildEnvelope({ eventId: event.id, type: event.type, object }, exchange.sentAt);
}

/** An attempt's request as the log shows it. */
export interface SentRequest {
  sentAt: Date;
  headers: Record<string, string>;
  /** Null when the event is no longer stored. */
  body: string | null;
  /**
   * False when the event lost its document data to retention after this attempt: the body shown is the
   * event as it is now (without it), so the signature no longer matches it.
   */
  bodyAsSent: boolean;
}

/** An attempt's request rebuilt from what the log keeps; null when nothing was sent (or it predates the log's keeping it). */
export function sentRequest(
  event: { id: string; type: Parameters<typeof buildEnvelope>[0]['type'] },
  stored: {
    sentAt: Date | null;
    requestHeaders: Record<string, string> | null;
    evidenceLinks: EvidenceLink[] | null;
    eventData: Record<string, unknown> | null;
  },
): SentRequest | null {
  if (!stored.sentAt || !stored.requestHeaders) return null;
  const { sentAt, eventData } = stored;
  if (!eventData) return { sentAt, headers: stored.requestHeaders, body: null, bodyAsSent: false };
  const removedAt = (eventData.result as { document_removed_at?: unknown } | undefined)?.document_removed_at;
  const removedSince = typeof removedAt === 'string' && Date.parse(removedAt) > sentAt.getTime();
  return {
    sentAt,
    headers: stored.requestHeaders,
    body: sentBody({ id: event.id, type: event.type, data: eventData }, { sentAt, evidenceLinks: stored.evidenceLinks }),
    bodyAsSent: !removedSince,
  };
}
