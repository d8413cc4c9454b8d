import { createHmac } from 'node:crypto';
import { EVIDENCE_ARTIFACTS, type EvidenceArtifact, type EvidenceLink } from '@idv/contracts';
import { safeEqual } from '@idv/kit';

/** Spec "Limits": an evidence link lives 5 minutes (scaled by TIME_SCALE). */
export const EVIDENCE_LINK_LIFETIME_MS = 5 * 60_000;

/** Public path of a download; the session id and the artefact id both in it, so a lookup is scoped by session. */
export const EVIDENCE_PATH_PREFIX = '/evidence';

/** What the link builder and the download need of a capture, without its bytes. */
export interface EvidenceArtefact {
  id: string;
  sessionId: string;
  kind: EvidenceArtifact;
  contentType: string;
}

export type DownloadOutcome = 'served' | 'expired' | 'bad_signature';

export interface DownloadRecord {
  sessionId: string;
  artefactId: string;
  kind: EvidenceArtifact;
  clientAddress: string;
  userAgent: string | null;
  outcome: DownloadOutcome;
  at: Date;
}

/** Where evidence comes from and where downloads are recorded (PostgreSQL by default). */
export interface EvidencePort {
  /** The latest capture of each evidence kind of each session. */
  latestOf(sessionIds: readonly string[]): Promise<EvidenceArtefact[]>;
  /** The artefact, only when it belongs to that session and is still the latest of its kind. */
  find(sessionId: string, artefactId: string): Promise<EvidenceArtefact | null>;
  /** The decrypted image; null when it was deleted meanwhile (retention). */
  bytes(artefactId: string): Promise<Buffer | null>;
  record(download: DownloadRecord): Promise<void>;
}

/** Unix milliseconds as a link writes them: digits, no leading zero (so one instant has one spelling). */
const EXPIRES_PATTERN = /^[1-9][0-9]{0,15}$/;
/** The last instant a Date can hold (ECMA-262 time value range); below 2^53, so the digits convert exactly. */
const LATEST_INSTANT_MS = 8_640_000_000_000_000;

/**
 * The `expires` of a link as the instant it names, or null when it is not written exactly as a link writes
 * it: the signature covers the number, so any other spelling of it (`0…`, `+…`) must not pass as the same link.
 */
export function parseExpires(value: string | undefined): number | null {
  if (value === undefined || !EXPIRES_PATTERN.test(value)) return null;
  const instant = Number(value);
  return instant <= LATEST_INSTANT_MS ? instant : null;
}

/**
 * HMAC-SHA256 over what a link grants: this artefact of this session until this instant. The key never
 * leaves the flow-runner (it both signs and checks), so there is nothing to share or rotate elsewhere.
 */
export class EvidenceSigner {
  constructor(private readonly key: Buffer) {
    if (key.length < 32) throw new Error('the evidence link key must have at least 32 bytes');
  }

  sign(sessionId: string, artefactId: string, expiresAtMs: number): string {
    return createHmac('sha256', this.key)
      .update(`idv-evidence-v1\n${sessionId}\n${artefactId}\n${expiresAtMs}`)
      .digest('base64url');
  }

  /**
   * The presented text against the text a link carries, in constant time. Decoding first would let other
   * spellings of the same bytes through: the last of the 43 characters has 2 bits a decoder ignores, and
   * Node's decoder also takes `+`, `/` and `=`.
   */
  verify(sessionId: string, artefactId: string, expiresAtMs: number, signature: string): boolean {
    return safeEqual(signature, this.sign(sessionId, artefactId, expiresAtMs));
  }
}

export interface DownloadRequest {
  sessionId: string;
  artefactId: string;
  /** The raw `expires` and `signature` query values (absent when the link was cut). */
  expires: string | undefined;
  signature: string | undefined;
  clientAddress: string;
  userAgent: string | null;
}

export type DownloadResult =
  | { kind: 'served'; artefact: EvidenceArtefact; bytes: Buffer }
  | { kind: 'not_found' }
  | { kind: 'bad_signature' }
  | { kind: 'expired' };

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/**
 * Evidence links: built when a session is sent (GET answer, webhook attempt) for the latest capture of
 * each document side, and checked on download. Links of a replaced capture stop working (the artefact
 * is no longer the latest of its kind), and so do links of a capture deleted by retention.
 */
export class EvidenceLinks {
  private readonly lifetimeMs: number;
  private readonly now: () => Date;

  constructor(
    private readonly deps: { port: EvidencePort; signer: EvidenceSigner; publicBaseUrl: string },
    options: { timeScale: number; now?: () => Date },
  ) {
    this.lifetimeMs = Math.max(1, Math.round(EVIDENCE_LINK_LIFETIME_MS * options.timeScale));
    this.now = options.now ?? (() => new Date());
  }

  /** Fresh links of each session, in the spec's artifact order; an unknown session gets an empty list. */
  async linksFor(sessionIds: readonly string[]): Promise<Record<string, EvidenceLink[]>> {
    const unique = [...new Set(sessionIds)];
    const found = await this.deps.port.latestOf(unique);
    const expiresAt = this.now().getTime() + this.lifetimeMs;
    const order = (kind: EvidenceArtifact) => EVIDENCE_ARTIFACTS.indexOf(kind);
    const out: Record<string, EvidenceLink[]> = Object.fromEntries(unique.map((id) => [id, []]));
    for (const artefact of [...found].sort((a, b) => order(a.kind) - order(b.kind))) {
      out[artefact.sessionId]?.push({
        artifact: artefact.kind,
        url: this.url(artefact, expiresAt),
        expires_at: new Date(expiresAt).toISOString(),
      });
    }
    return out;
  }

  private url(artefact: EvidenceArtefact, expiresAt: number): string {
    const signature = this.deps.signer.sign(artefact.sessionId, artefact.id, expiresAt);
    const path = `${EVIDENCE_PATH_PREFIX}/${artefact.sessionId}/${artefact.id}`;
    return `${trimSlash(this.deps.publicBaseUrl)}${path}?expires=${expiresAt}&signature=${signature}`;
  }

  /**
   * Checks a download: the artefact must be the session's (404 otherwise, whatever the signature), then
   * the signature (constant time, over `expires` exactly as a link writes it), then the expiry, which is only
   * believed once signed. Every decision on a real artefact is recorded; a miss is not (it names nothing to
   * audit). A throttled request never gets here: the route refuses it and counts it.
   */
  async download(request: DownloadRequest): Promise<DownloadResult> {
    const { port, signer } = this.deps;
    const artefact = await port.find(request.sessionId, request.artefactId);
    if (!artefact) return { kind: 'not_found' };
    const expiresAt = parseExpires(request.expires);
    const now = this.now();
    const record = (outcome: DownloadOutcome) =>
      port.record({
        sessionId: artefact.sessionId,
        artefactId: artefact.id,
        kind: artefact.kind,
        clientAddress: request.clientAddress,
        userAgent: request.userAgent,
        outcome,
        at: now,
      });
    if (
      expiresAt === null ||
      request.signature === undefined ||
      !signer.verify(artefact.sessionId, artefact.id, expiresAt, request.signature)
    ) {
      await record('bad_signature');
      return { kind: 'bad_signature' };
    }
    if (expiresAt <= now.getTime()) {
      await record('expired');
      return { kind: 'expired' };
    }
    const bytes = await port.bytes(artefact.id);
    if (!bytes) return { kind: 'not_found' };
    await record('served');
    return { kind: 'served', artefact, bytes };
  }
}
