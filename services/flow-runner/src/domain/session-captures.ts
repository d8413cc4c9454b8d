import {
  CAPTURE_CONTENT_TYPES,
  EVIDENCE_ARTIFACTS,
  type AccountId,
  type CaptureContentType,
  type EvidenceArtifact,
  type EvidenceDownloadOutcome,
  type SessionId,
} from '@idv/contracts';

/**
 * A session's captured images as its account's dashboard reads them: which captures are kept, one
 * capture's image, and who used the session's evidence links. Always by account and session.
 */

/** The flow of an account's session, as far as its captures are concerned. */
export interface CapturedFlow {
  /** When retention removed the flow's document data; null while it is kept. */
  dataRemovedAt: Date | null;
}

export interface CaptureSummary {
  artifact: EvidenceArtifact;
  contentType: string;
  capturedAt: Date;
}

export interface CaptureImage {
  contentType: string;
  bytes: Buffer;
}

export interface EvidenceDownloadRow {
  at: Date;
  artifact: EvidenceArtifact;
  outcome: EvidenceDownloadOutcome;
  clientAddress: string;
}

/** Where the captures are read from (PostgreSQL by default): every read names the account. */
export interface SessionCapturesPort {
  /** The account's flow of that session; null when there is none (never opened, or another account's). */
  flow(accountId: AccountId, sessionId: SessionId): Promise<CapturedFlow | null>;
  /** The latest capture of each evidence artifact of the account's session (metadata only). */
  list(accountId: AccountId, sessionId: SessionId): Promise<CaptureSummary[]>;
  /** The latest capture of `artifact`, decrypted; null when the account's flow has none kept. */
  image(accountId: AccountId, sessionId: SessionId, artifact: EvidenceArtifact): Promise<CaptureImage | null>;
  /** Up to `limit` uses of the account's session's evidence links, newest first. */
  downloads(accountId: AccountId, sessionId: SessionId, limit: number): Promise<EvidenceDownloadRow[]>;
}

/** Captures in the order the spec lists artifacts (front, back, front_angle, selfie). */
export function inArtifactOrder<T extends { artifact: EvidenceArtifact }>(captures: readonly T[]): T[] {
  const order = (artifact: EvidenceArtifact) => EVIDENCE_ARTIFACTS.indexOf(artifact);
  return [...captures].sort((a, b) => order(a.artifact) - order(b.artifact));
}

/** A stored content type when it is one an image is served as; null for anything else (never served). */
export function servableContentType(contentType: string): CaptureContentType | null {
  const bare = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return (CAPTURE_CONTENT_TYPES as readonly string[]).includes(bare) ? (bare as CaptureContentType) : null;
}

/** A download's artifact as stored (`kind`) when it is an evidence artifact; the others are never linked. */
export function isEvidenceArtifact(kind: string): kind is EvidenceArtifact {
  return (EVIDENCE_ARTIFACTS as readonly string[]).includes(kind);
}
