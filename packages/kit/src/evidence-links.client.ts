import { INTERNAL_HEADERS, contractPath, internalRoute, type EvidenceLink } from '@idv/contracts';

const EVIDENCE_LINKS = internalRoute('createEvidenceLinks');

/**
 * The flow-runner's internal link builder (`POST /internal/evidence-links`): the flow-runner alone
 * knows which captures exist and holds the key that signs them (docs/decisions.md "Evidence links").
 */
export class EvidenceLinksClient {
  constructor(
    private readonly baseUrl: string,
    private readonly internalToken: string,
    private readonly timeoutMs: number,
  ) {}

  /** Fresh links of each session; throws when the flow-runner cannot answer usably. */
  async linksFor(sessionIds: readonly string[]): Promise<Record<string, EvidenceLink[]>> {
    const response = await fetch(`${this.baseUrl.replace(/\/+$/, '')}${contractPath(EVIDENCE_LINKS)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [INTERNAL_HEADERS.token]: this.internalToken },
      body: JSON.stringify({ session_ids: sessionIds }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`flow-runner answered ${response.status} to evidence links`);
    return EVIDENCE_LINKS.responses[200].schema.parse(JSON.parse(text)).sessions;
  }
}
