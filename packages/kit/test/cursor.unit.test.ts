import { createHmac, hkdfSync } from 'node:crypto';
import { idPattern } from '@idv/contracts';
import { cursorCodec, toPage } from '../src';

const SECRET = 'test-internal-token-0123456789';
const codec = cursorCodec({ secret: SECRET, purpose: 'verification-sessions', idPattern: idPattern('session') });
const position = { createdAt: '2026-11-22T12:34:56.789Z', id: 'vs_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6' };
const invalidCursor = expect.objectContaining({ code: 'invalid_cursor', status: 422 });

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Signs any payload the way the codec does: what a leaked key or a buggy release could produce. */
function signedBySameKey(payload: unknown, purpose = 'verification-sessions'): string {
  const key = Buffer.from(hkdfSync('sha256', SECRET, 'idv-cursor', `cursor:${purpose}`, 32));
  const text = b64(payload);
  return `${text}.${createHmac('sha256', key).update(text).digest().subarray(0, 16).toString('base64url')}`;
}

describe('signed cursors', () => {
  it('when a position is encoded, then it decodes to the same position and reads as opaque', () => {
    const raw = codec.encode(position);
    expect(codec.decode(raw)).toEqual(position);
    expect(raw).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(raw.length).toBeLessThanOrEqual(512);
  });

  it('when the same position is encoded twice, then the cursor is the same (stable for clients that compare)', () => {
    expect(codec.encode(position)).toBe(codec.encode({ ...position }));
  });

  it.each([
    ['empty', ''],
    ['not base64', 'not-base64!'],
    ['no tag', b64([position.createdAt, position.id])],
    ['an old unsigned cursor', b64([position.createdAt, position.id])],
    ['the epoch as "0"', `${b64(['0', 'vs_a'])}.AAAAAAAAAAAAAAAAAAAAAA`],
    ['a NUL', `${b64([position.createdAt, 'vs_\u0000'])}.AAAAAAAAAAAAAAAAAAAAAA`],
    ['too long', `${'A'.repeat(600)}.AAAAAAAAAAAAAAAAAAAAAA`],
  ])('when the cursor is %s, then it is invalid_cursor', (_name, raw) => {
    expect(() => codec.decode(raw)).toThrow(invalidCursor);
  });

  it('when one character of the payload or of the tag changes, then it is invalid_cursor', () => {
    const raw = codec.encode(position);
    for (let at = 0; at < raw.length; at++) {
      if (raw[at] === '.') continue;
      const changed = `${raw.slice(0, at)}${raw[at] === 'A' ? 'B' : 'A'}${raw.slice(at + 1)}`;
      expect(() => codec.decode(changed)).toThrow(invalidCursor);
    }
  });

  it('when the payload is swapped for another position with the tag kept, then it is invalid_cursor', () => {
    const [, tag] = codec.encode(position).split('.');
    expect(() => codec.decode(`${b64(['2020-01-01T00:00:00.000Z', position.id])}.${tag}`)).toThrow(invalidCursor);
  });

  it('when a cursor of another list or another deployment secret is sent, then it is invalid_cursor', () => {
    const endpoints = cursorCodec({ secret: SECRET, purpose: 'webhook-endpoints', idPattern: idPattern('session') });
    const otherSecret = cursorCodec({
      secret: `${SECRET}-rotated`,
      purpose: 'verification-sessions',
      idPattern: idPattern('session'),
    });
    expect(() => codec.decode(endpoints.encode(position))).toThrow(invalidCursor);
    expect(() => codec.decode(otherSecret.encode(position))).toThrow(invalidCursor);
  });

  it.each([
    ['a date that does not exist', ['2020-02-30T00:00:00.000Z', position.id]],
    ['a year out of PostgreSQL range', ['+275760-09-13T00:00:00.000Z', position.id]],
    ['a date without time', ['2026-11-22', position.id]],
    ['hour 24', ['2026-11-22T24:00:00.000Z', position.id]],
    ['an offset instead of Z', ['2026-11-22T12:00:00.000+00:00', position.id]],
    ['a number', [0, position.id]],
    ['an id of another kind', [position.createdAt, 'whep_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6']],
    ['an id with a NUL', [position.createdAt, 'vs_01JD3Z8Q5X8R0VQ1T7W9Y2K4M\u0000']],
    ['three items', [position.createdAt, position.id, 'x']],
    ['an object', { createdAt: position.createdAt, id: position.id }],
  ])('when a correctly signed cursor carries %s, then it is still invalid_cursor', (_name, payload) => {
    expect(() => codec.decode(signedBySameKey(payload))).toThrow(invalidCursor);
  });

  it('when the service would encode a malformed position of its own, then it fails loudly instead of issuing it', () => {
    expect(() => codec.encode({ createdAt: 'yesterday', id: position.id })).toThrow(/malformed cursor/);
    expect(() => codec.encode({ createdAt: position.createdAt, id: 'vs_1' })).toThrow(/malformed cursor/);
  });

  it('when a page has more rows than the limit, then its next_cursor decodes to the last row returned', () => {
    const rows = ['01JD3Z8Q5X8R0VQ1T7W9Y2K4M6', '01JD3Z8Q5X8R0VQ1T7W9Y2K4M5', '01JD3Z8Q5X8R0VQ1T7W9Y2K4M4'].map((suffix, i) => ({
      id: `vs_${suffix}`,
      createdAt: new Date(Date.UTC(2026, 10, 22, 12, 0, 3 - i)),
    }));
    const page = toPage(
      rows,
      2,
      (row) => row.id,
      (row) => ({ createdAt: row.createdAt.toISOString(), id: row.id }),
      codec,
    );
    expect(page).toMatchObject({ object: 'list', data: [rows[0]!.id, rows[1]!.id], has_more: true });
    expect(codec.decode(page.next_cursor!)).toEqual({ createdAt: rows[1]!.createdAt.toISOString(), id: rows[1]!.id });
    expect(
      toPage(
        rows,
        3,
        (row) => row.id,
        () => position,
        codec,
      ).next_cursor,
    ).toBeUndefined();
  });
});
