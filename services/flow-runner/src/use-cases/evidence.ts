import { EVIDENCE_ARTIFACTS, type ArtefactId, type EvidenceArtifact, type EvidenceLink, type SessionId } from '@idv/contracts';
import { EVIDENCE_LINK_LIFETIME_MS, EVIDENCE_PATH_PREFIX, parseExpires, type EvidenceSigner } from '../domain/evidence';
import type { DownloadOutcome, EvidenceArtefact, EvidencePort } from '../domain/ports';

export interface DownloadRequest {
  sessionId: SessionId;
  artefactId: ArtefactId;
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
  async linksFor(sessionIds: readonly SessionId[]): Promise<Record<string, EvidenceLink[]>> {
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
