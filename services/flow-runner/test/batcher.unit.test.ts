import { Batcher } from '../src/adapters/batcher';

/** A `send` whose calls stay open until the test answers them. */
function pendingSender() {
  const calls: { keys: string[]; answer: () => void; fail: (error: Error) => void }[] = [];
  const send = (keys: string[]) =>
    new Promise<string[]>((resolve, reject) => {
      calls.push({
        keys,
        answer: () => resolve(keys.map((k) => `ok:${k}`)),
        fail: reject,
      });
    });
  return { calls, send };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('coalescing concurrent requests (activity reports, flow reads)', () => {
  test('when nothing is on its way, then a request goes out at once, alone', async () => {
    const { calls, send } = pendingSender();
    const batcher = new Batcher(send, { keyOf: (key: string) => key, sameKey: 'share', maxBatch: 100, maxInFlight: 2 });

    const answer = batcher.submit('a');
    expect(calls.map((c) => c.keys)).toEqual([['a']]);
    calls[0]!.answer();

    await expect(answer).resolves.toBe('ok:a');
  });

  test('when two batches are on their way, then later requests wait and leave together as soon as one comes back', async () => {
    const { calls, send } = pendingSender();
    const batcher = new Batcher(send, { keyOf: (key: string) => key, sameKey: 'share', maxBatch: 100, maxInFlight: 2 });

    const answers = ['a', 'b', 'c', 'd', 'c', 'e'].map((key) => batcher.submit(key));
    expect(calls.map((c) => c.keys)).toEqual([['a'], ['b']]);
    calls[1]!.answer();
    await settle();
    expect(calls.map((c) => c.keys)).toEqual([['a'], ['b'], ['c', 'd', 'e']]);
    calls[0]!.answer();
    calls[2]!.answer();

    await expect(Promise.all(answers)).resolves.toEqual(['ok:a', 'ok:b', 'ok:c', 'ok:d', 'ok:c', 'ok:e']);
    expect(calls).toHaveLength(3);
  });

  test('when more requests wait than a batch may carry, then they leave in several batches', async () => {
    const { calls, send } = pendingSender();
    const batcher = new Batcher(send, { keyOf: (key: string) => key, sameKey: 'share', maxBatch: 2, maxInFlight: 1 });

    const answers = ['a', 'b', 'c', 'd', 'e'].map((key) => batcher.submit(key));
    calls[0]!.answer();
    await settle();
    calls[1]!.answer();
    await settle();
    calls[2]!.answer();

    await expect(Promise.all(answers)).resolves.toHaveLength(5);
    expect(calls.map((c) => c.keys)).toEqual([['a'], ['b', 'c'], ['d', 'e']]);
  });

  test('when a batch fails, then every request in it fails and the next ones still go out', async () => {
    const { calls, send } = pendingSender();
    const batcher = new Batcher(send, { keyOf: (key: string) => key, sameKey: 'share', maxBatch: 100, maxInFlight: 1 });

    const first = batcher.submit('a');
    const waiting = [batcher.submit('b'), batcher.submit('c')];
    calls[0]!.fail(new Error('sessions service unavailable'));
    await expect(first).rejects.toThrow('sessions service unavailable');
    await settle();
    calls[1]!.fail(new Error('still unavailable'));
    for (const pending of waiting) await expect(pending).rejects.toThrow('still unavailable');

    const later = batcher.submit('d');
    calls[2]!.answer();
    await expect(later).resolves.toBe('ok:d');
  });

  test('when the answer leaves a key out, then that request fails instead of hanging', async () => {
    const batcher = new Batcher((keys: string[]) => Promise.resolve(keys.map((key) => (key === 'a' ? 'ok' : undefined))), {
      keyOf: (key: string) => key,
      sameKey: 'share',
      maxBatch: 100,
      maxInFlight: 1,
    });
    await expect(batcher.submit('b')).rejects.toThrow('no answer for b');
  });
});

describe('batching concurrent versioned writes', () => {
  type Write = { key: string; value: number };

  function pendingWriter() {
    const calls: { writes: Write[]; answer: (took: boolean[]) => void; fail: (error: Error) => void }[] = [];
    const send = (writes: Write[]) =>
      new Promise<boolean[]>((resolve, reject) => {
        calls.push({ writes, answer: resolve, fail: reject });
      });
    return { calls, send };
  }

  test('when writes wait behind one on its way, then they leave together, but never two of the same flow in one batch', async () => {
    const { calls, send } = pendingWriter();
    const batcher = new Batcher(send, { keyOf: (w: Write) => w.key, sameKey: 'next-batch', maxBatch: 100, maxInFlight: 1 });

    const results = [
      batcher.submit({ key: 'a', value: 1 }),
      batcher.submit({ key: 'b', value: 1 }),
      batcher.submit({ key: 'a', value: 2 }),
      batcher.submit({ key: 'c', value: 1 }),
      batcher.submit({ key: 'a', value: 3 }),
    ];
    expect(calls.map((c) => c.writes)).toEqual([[{ key: 'a', value: 1 }]]);
    calls[0]!.answer([true]);
    await settle();
    expect(calls[1]!.writes).toEqual([
      { key: 'b', value: 1 },
      { key: 'a', value: 2 },
      { key: 'c', value: 1 },
    ]);
    calls[1]!.answer([true, false, true]);
    await settle();
    expect(calls[2]!.writes).toEqual([{ key: 'a', value: 3 }]);
    calls[2]!.answer([true]);

    await expect(Promise.all(results)).resolves.toEqual([true, true, false, true, true]);
  });

  test('when a batch fails, then every write in it fails and later writes still go out', async () => {
    const { calls, send } = pendingWriter();
    const batcher = new Batcher(send, { keyOf: (w: Write) => w.key, sameKey: 'next-batch', maxBatch: 100, maxInFlight: 1 });

    const first = batcher.submit({ key: 'a', value: 1 });
    calls[0]!.fail(new Error('database unavailable'));
    await expect(first).rejects.toThrow('database unavailable');

    const later = batcher.submit({ key: 'a', value: 2 });
    calls[1]!.answer([true]);
    await expect(later).resolves.toBe(true);
  });
});
