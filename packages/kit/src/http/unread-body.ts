import type { IncomingMessage, ServerResponse } from 'node:http';

export interface UnreadBodyBounds {
  maxBytes: number;
  maxMs: number;
  /** Longest wait for the next bytes (a client that stopped sending is not waited for until `maxMs`). */
  maxIdleMs?: number;
}

/** What a client may still send after an answer given before its body was read: a photo's worth, for a second. */
export const UNREAD_BODY_BOUNDS: UnreadBodyBounds = { maxBytes: 1024 * 1024, maxMs: 1000 };

/**
 * Reads and drops what is left of an incomplete `req` (the caller has unpiped it from whatever read it);
 * true when it ended within the bounds. A client still uploading when its connection closes sees EPIPE
 * instead of the answer, and Node waits for those bytes before it parses the next request on a keep-alive
 * connection: a bounded rest is read so that the client reads the answer; past the bounds, the caller
 * closes the connection.
 */
export function discardUnreadBody(req: IncomingMessage, bounds: UnreadBodyBounds = UNREAD_BODY_BOUNDS): Promise<boolean> {
  if (req.complete) return Promise.resolve(true);
  return new Promise((resolve) => {
    let discarded = 0;
    const finish = (drained: boolean) => {
      clearTimeout(timer);
      clearTimeout(idle);
      req.off('data', onData).off('end', onEnd).off('error', onStop).off('close', onStop);
      if (!drained) req.pause();
      resolve(drained);
    };
    let idle: NodeJS.Timeout | undefined;
    const waitForMore = () => {
      if (bounds.maxIdleMs === undefined) return;
      clearTimeout(idle);
      idle = setTimeout(() => finish(false), bounds.maxIdleMs);
    };
    const onData = (chunk: Buffer) => {
      discarded += chunk.length;
      if (discarded > bounds.maxBytes) finish(false);
      else waitForMore();
    };
    const onEnd = () => finish(true);
    const onStop = () => finish(req.complete);
    const timer = setTimeout(() => finish(false), bounds.maxMs);
    waitForMore();
    req.on('data', onData).on('end', onEnd).on('error', onStop).on('close', onStop);
    req.resume();
  });
}

/**
 * An answer given without reading the request's body (refused before anyone is checked, or cut short).
 * A browser reads the answer only once it has sent its whole body, and a connection closed under a body
 * still arriving is reset, losing the answer: so the rest is read and dropped, costing no memory, within
 * the bounds (a "lingering close"); past them, or when it is declared bigger than them, the connection is
 * closed.
 */
export function answerWithoutBody(
  req: IncomingMessage,
  res: ServerResponse,
  send: () => void,
  bounds: UnreadBodyBounds = UNREAD_BODY_BOUNDS,
): void {
  const declared = Number(req.headers['content-length'] ?? 0);
  // A body that is declared bigger than the bounds cannot be drained: closing at once is kinder.
  if (!req.complete && declared > bounds.maxBytes) res.setHeader('Connection', 'close');
  send();
  if (req.complete || declared > bounds.maxBytes) return;
  void discardUnreadBody(req, bounds).then((drained) => {
    if (!drained) req.socket.destroy();
  });
}
