import {
  toTimestamp,
  type AccountId,
  type EvidenceArtifact,
  type EvidenceDownloads,
  type SessionCaptures,
  type SessionId,
} from '@idv/contracts';
import type { SessionsPort } from '../domain/ports';
import { inArtifactOrder, servableContentType, type CapturedFlow, type SessionCapturesPort } from '../domain/session-captures';

export interface SessionCapturesDeps {
  captures: SessionCapturesPort;
  /** For a session whose link was never opened (no flow here): only the sessions service knows whose it is. */
  sessions: Pick<SessionsPort, 'get'>;
}

/**
 * A session's captured images and the uses of its evidence links, for its account's dashboard (the session
 * page's images, the person's access trail). Anything not the account's is null, answered 404 like any id
 * of another account; a session of the account whose link was never opened has no capture and no download.
 */
export class SessionCaptureReader {
  constructor(private readonly deps: SessionCapturesDeps) {}

  async list(accountId: AccountId, sessionId: SessionId): Promise<SessionCaptures | null> {
    const flow = await this.accountFlow(accountId, sessionId);
    if (flow === null) return null;
    const captures = flow === 'unopened' ? [] : await this.deps.captures.list(accountId, sessionId);
    const data = inArtifactOrder(
      captures.flatMap((capture) => {
        const contentType = servableContentType(capture.contentType);
        return contentType
          ? [{ artifact: capture.artifact, content_type: contentType, captured_at: toTimestamp(capture.capturedAt) }]
          : [];
      }),
    );
    const removed = flow === 'unopened' ? null : flow.dataRemovedAt;
    return { object: 'list', session_id: sessionId, data, data_removed_at: removed ? toTimestamp(removed) : null };
  }

  /** The latest capture of `artifact`, decrypted, with the type it is served as; null: nothing to serve. */
  async image(
    accountId: AccountId,
    sessionId: SessionId,
    artifact: EvidenceArtifact,
  ): Promise<{ contentType: string; bytes: Buffer } | null> {
    const image = await this.deps.captures.image(accountId, sessionId, artifact);
    const contentType = image ? servableContentType(image.contentType) : null;
    return image && contentType ? { contentType, bytes: image.bytes } : null;
  }

  async downloads(accountId: AccountId, sessionId: SessionId, limit: number): Promise<EvidenceDownloads | null> {
    const flow = await this.accountFlow(accountId, sessionId);
    if (flow === null) return null;
    const rows = flow === 'unopened' ? [] : await this.deps.captures.downloads(accountId, sessionId, limit + 1);
    return {
      object: 'list',
      session_id: sessionId,
      data: rows.slice(0, limit).map((row) => ({
        at: toTimestamp(row.at),
        artifact: row.artifact,
        outcome: row.outcome,
        client_address: row.clientAddress.slice(0, 64),
      })),
      has_more: rows.length > limit,
    };
  }

  /** The account's flow of the session, `unopened` for one of its sessions never opened, null for anything else. */
  private async accountFlow(accountId: AccountId, sessionId: SessionId): Promise<CapturedFlow | 'unopened' | null> {
    const flow = await this.deps.captures.flow(accountId, sessionId);
    if (flow) return flow;
    const session = await this.deps.sessions.get(sessionId);
    return session?.account_id === accountId ? 'unopened' : null;
  }
}
