import { type EvidenceLink, type FlowConfig, type ProjectId, type VerificationSession } from '@idv/contracts';
import { AppError, type Logger } from '@idv/kit';

export interface EvidenceLinksSource {
  linksFor(sessionIds: readonly string[]): Promise<Record<string, EvidenceLink[]>>;
}

/**
 * Adds `evidence_links` to the sessions of an answer whose frozen configuration opted in
 * (`evidenceLinks`), generated now: links are made when a session is sent, never stored.
 */
export class SessionEvidence {
  constructor(
    private readonly deps: {
      config: (projectId: ProjectId, version: number) => Promise<FlowConfig>;
      source: EvidenceLinksSource;
      logger: Logger;
    },
  ) {}

  async attach<T extends VerificationSession>(sessions: readonly T[]): Promise<T[]> {
    const opted = new Set<string>();
    for (const session of sessions) {
      const config = await this.deps.config(session.project_id, Number(session.config_version.slice('cfg_'.length)));
      if (config.options.evidenceLinks) opted.add(session.id);
    }
    if (opted.size === 0) return [...sessions];
    let links: Record<string, EvidenceLink[]>;
    try {
      links = await this.deps.source.linksFor([...opted]);
    } catch (error) {
      // The project opted in: an answer without its links would read as "nothing was captured".
      this.deps.logger.warn({ err: error }, 'evidence links unavailable');
      throw new AppError(
        'service_unavailable',
        'The evidence links of this session cannot be generated right now; retry shortly.',
        {
          headers: { 'Retry-After': '1' },
        },
      );
    }
    return sessions.map((session) => (opted.has(session.id) ? { ...session, evidence_links: links[session.id] ?? [] } : session));
  }

  async attachOne<T extends VerificationSession>(session: T): Promise<T> {
    const [attached] = await this.attach([session]);
    return attached!;
  }
}
