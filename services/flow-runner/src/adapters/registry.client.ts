import type { RegistryCheckId } from '@idv/contracts';
import { Agent, request } from 'undici';
import { z } from 'zod';
import { REGISTRY_FIELDS, type RegistryAnswer, type RegistryField, type RegistryQuery } from '../domain/registry';
import { type RegistryPort } from '../domain/ports';

export interface RegistryOptions {
  /** Base URL: the check is `POST {url}/v1/identities/verify`. */
  url: string;
  token: string;
  timeoutMs: number;
}

const AnswerSchema = z.discriminatedUnion('result', [
  z.object({ result: z.literal('match') }),
  z.object({ result: z.literal('mismatch'), fields: z.array(z.string()).max(50).optional() }),
  z.object({ result: z.literal('not_found') }),
]);

const KNOWN_FIELDS = new Set<string>(REGISTRY_FIELDS);

/**
 * Reads the registry's answer. Only a 200 with one of the three documented bodies is definite;
 * every other status, and a body we cannot read, is `unavailable` (asked again later), never a
 * mismatch: the person is not rejected because the registry misbehaved. The cause never carries the
 * body (it could echo the holder's data), only the status and what was wrong with it.
 */
export function parseRegistryAnswer(status: number, text: string): RegistryAnswer {
  if (status !== 200) return { kind: 'unavailable', cause: `status_${status}` };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { kind: 'unavailable', cause: 'malformed_json' };
  }
  const parsed = AnswerSchema.safeParse(body);
  if (!parsed.success) return { kind: 'unavailable', cause: 'malformed_answer' };
  switch (parsed.data.result) {
    case 'match':
      return { kind: 'match' };
    case 'not_found':
      return { kind: 'not_found' };
    case 'mismatch': {
      const fields = (parsed.data.fields ?? []).filter((field): field is RegistryField => KNOWN_FIELDS.has(field));
      return { kind: 'mismatch', fields: [...new Set(fields)] };
    }
  }
}

/**
 * The national registry's identity check over HTTP: bearer credentials, a timeout on every phase of
 * the call, and the check's id as `Idempotency-Key` so that the registry can answer (and bill) every
 * attempt of one check as one request. A network failure or timeout is `unavailable`, never thrown.
 */
export class RegistryClient implements RegistryPort {
  private readonly agent: Agent;
  private readonly endpoint: string;

  constructor(private readonly options: RegistryOptions) {
    this.agent = new Agent({
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connectTimeout: options.timeoutMs,
    });
    this.endpoint = `${options.url.replace(/\/+$/, '')}/v1/identities/verify`;
  }

  async verify(query: RegistryQuery, checkId: RegistryCheckId): Promise<RegistryAnswer> {
    try {
      const response = await request(this.endpoint, {
        method: 'POST',
        dispatcher: this.agent,
        headers: {
          authorization: `Bearer ${this.options.token}`,
          'content-type': 'application/json',
          accept: 'application/json',
          'idempotency-key': checkId,
        },
        body: JSON.stringify(query),
        // The whole call, not only each phase: a registry trickling bytes is as down as a silent one.
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      const text = await response.body.text();
      return parseRegistryAnswer(response.statusCode, text);
    } catch (error) {
      const name = error instanceof Error ? error.name : 'Error';
      const code = (error as { code?: unknown }).code;
      return { kind: 'unavailable', cause: typeof code === 'string' ? code : name };
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
