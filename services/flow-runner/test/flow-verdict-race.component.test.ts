import { createHash } from 'node:crypto';
import { FlowConfigSchema, newId, type InternalSession } from '@idv/contracts';
import { initialState } from '../src/domain/engine';
import { type CodeSender, type FlowRecord, type SessionsPort, type UploadPorts } from '../src/domain/ports';
import { FlowService } from '../src/use-cases/flow-service';
import { FORM_STEP } from './fixtures';
import { stackFlowStore } from './private-database';

/**
 * A page view that races with a background job delivering the flow's verdict (a document read or a face
 * judged on another thread or replica). The view reads the flow, still active; the job stores the
 * verdict and the sessions service takes it; the view then asks the sessions service, which says the
 * session ended. The stored flow, against the stack's real PostgreSQL, is what the page must follow.
 * The sessions service's answer is the one thing scripted here: the interleaving cannot be forced
 * through HTTP.
 */
const db = stackFlowStore();

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const unused = (): never => {
  throw new Error('not used by a page view');
};

async function activeFlow(bindingSecret: string): Promise<FlowRecord> {
  const sessionId = newId('session');
  const record: FlowRecord = {
    sessionId,
    accountId: newId('account'),
    mode: 'test',
    isTry: false,
    tokenHash: sha256(`token-${sessionId}`),
    bindingHash: sha256(bindingSecret),
    csrfToken: 'csrf',
    config: FlowConfigSchema.parse({ steps: [FORM_STEP] }),
    state: initialState(),
    status: 'active',
    locale: 'es',
    version: 0,
  };
  await db.store.insert(record);
  return record;
}

/** The sessions service as it answers once the job's delivery landed: the session ended with `status`. */
function sessionsEndedWith(status: InternalSession['status'], meanwhile: () => Promise<void>): SessionsPort {
  return {
    get: async (sessionId) => {
      await meanwhile();
      return { id: sessionId, status } as InternalSession;
    },
    redeem: unused,
    activity: unused,
    resolve: unused,
    hold: unused,
  };
}

function serviceWith(sessions: SessionsPort): FlowService {
  return new FlowService({
    store: db.store,
    sessions,
    sender: { send: unused } satisfies CodeSender,
    uploads: {} as UploadPorts,
    readings: { reading: unused },
    timeScale: 1,
  });
}

describe('a page view racing with a delivered verdict', () => {
  test.each(['approved', 'rejected'] as const)(
    'when the flow was %s by a job between the view reading it and asking the sessions service, then the page shows that verdict',
    async (outcome) => {
      const secret = 'binding-secret';
      const flow = await activeFlow(secret);
      const service = serviceWith(
        sessionsEndedWith(outcome, async () => {
          const delivered = await db.store.find(flow.sessionId);
          delivered!.status = outcome;
          expect(await db.store.update(delivered!)).toBe(true);
        }),
      );

      const page = await service.show(flow.sessionId, secret, 'es');

      expect(page).toMatchObject({ kind: 'status', page: outcome, sessionId: flow.sessionId });
    },
  );

  test('when the session ended outside the flow (the flow still stands at a step), then the page says it is over', async () => {
    const secret = 'binding-secret';
    const flow = await activeFlow(secret);
    const service = serviceWith(sessionsEndedWith('approved', () => Promise.resolve()));

    const page = await service.show(flow.sessionId, secret, 'es');

    expect(page).toMatchObject({ kind: 'status', page: 'finished' });
    expect((await db.store.find(flow.sessionId))!.status).toBe('active');
  });

  test('when the session was canceled, then the page says so', async () => {
    const secret = 'binding-secret';
    const flow = await activeFlow(secret);
    const service = serviceWith(sessionsEndedWith('canceled', () => Promise.resolve()));

    expect(await service.show(flow.sessionId, secret, 'es')).toMatchObject({ kind: 'status', page: 'canceled' });
  });
});
