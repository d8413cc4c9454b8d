import { newId } from '@idv/contracts';
import { SubscriptionGate } from '../src/use-cases/subscription-gate';

// The gate in front of the full parse of a session event: it may remember that an account has a
// subscriber (a saving only), never that it has none (that would miss an endpoint created a moment ago).
describe('the subscription gate', () => {
  const TYPE = 'verification_session.completed';

  function gateOver(answers: Map<string, boolean>, options = { rememberMs: 1_000, maxEntries: 2 }) {
    let now = 0;
    const asked: string[] = [];
    const gate = new SubscriptionGate(
      (accountId, type) => {
        asked.push(`${accountId} ${type}`);
        return Promise.resolve(answers.get(accountId) ?? false);
      },
      options,
      () => now,
    );
    return { gate, asked, advance: (ms: number) => (now += ms) };
  }

  it('when an account has no subscriber, then every event asks again and sees an endpoint created since', async () => {
    const account = newId('account');
    const answers = new Map<string, boolean>();
    const { gate, asked } = gateOver(answers);
    expect(await gate.mayDeliver(account, TYPE)).toBe(false);
    expect(await gate.mayDeliver(account, TYPE)).toBe(false);
    answers.set(account, true);
    expect(await gate.mayDeliver(account, TYPE)).toBe(true);
    expect(asked).toHaveLength(3);
  });

  it('when a subscriber was seen, then the account and type pass without asking until the memory expires', async () => {
    const account = newId('account');
    const answers = new Map<string, boolean>([[account, true]]);
    const { gate, asked, advance } = gateOver(answers);
    expect(await gate.mayDeliver(account, TYPE)).toBe(true);
    advance(999);
    expect(await gate.mayDeliver(account, TYPE)).toBe(true);
    expect(asked).toHaveLength(1);
    // Another type of the same account is its own question.
    expect(await gate.mayDeliver(account, 'verification_session.canceled')).toBe(true);
    expect(asked).toHaveLength(2);
    answers.set(account, false);
    advance(1);
    expect(await gate.mayDeliver(account, TYPE)).toBe(false);
    expect(asked).toHaveLength(3);
  });

  it('when more accounts have subscribers than it may remember, then the oldest is forgotten and asked again', async () => {
    const [a, b, c] = [newId('account'), newId('account'), newId('account')];
    const answers = new Map([a, b, c].map((id) => [id as string, true]));
    const { gate, asked } = gateOver(answers);
    for (const account of [a, b, c]) await gate.mayDeliver(account, TYPE);
    await gate.mayDeliver(c, TYPE);
    await gate.mayDeliver(b, TYPE);
    expect(asked).toHaveLength(3);
    await gate.mayDeliver(a, TYPE);
    expect(asked.at(-1)).toBe(`${a} ${TYPE}`);
    expect(asked).toHaveLength(4);
  });
});
