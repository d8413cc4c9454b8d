import type { ServerResponse } from 'node:http';
import { Receiver } from '@idv/testkit';

/**
 * The webhook receiver lives in @idv/testkit (`Receiver`, `receiversOfThisFile`): new tests use it from there.
 * This adapter of its old shape (an answer given the response only) stays while webhook-retry.component.test.ts,
 * being edited now, still imports it; delete it when that file moves to @idv/testkit's.
 */
export type TestReceiver = Receiver;
export const TestReceiver = {
  start: (answer: (res: ServerResponse) => void): Promise<Receiver> => Receiver.start((_hit, res) => answer(res)),
};
