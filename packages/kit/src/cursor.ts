import { createHmac, hkdfSync } from 'node:crypto';
import { AppError } from './errors';
import { safeEqual } from './http/identity';

/**
 * Opaque keyset cursor over (created_at, id), newest first: stable under concurrent inserts because a
 * page continues strictly after the last row seen rather than at an offset.
 */
export interface Cursor {
  createdAt: string;
  id: string;
}

/** Encodes the cursors of one list and refuses any it did not issue. */
export interface CursorCodec {
  encode(cursor: Cursor): string;
  /** The position a cursor names, or 422 `invalid_cursor` for anything this codec did not issue. */
  decode(raw: string): Cursor;
}

export interface CursorCodecOptions {
  /** The services' shared INTERNAL_TOKEN: the signing key is derived from it, so no new secret to deploy. */
  secret: string;
  /** The list the cursors belong to (`sessions`, `webhook-endpoints`…): a cursor of one list is refused by another. */
  purpose: string;
  /** The shape of the list's ids, e.g. `idPattern('session')`. */
  idPattern: RegExp;
}

/** 128-bit tag: forging one is out of reach, and it keeps cursors short. */
const TAG_BYTES = 16;
const MAX_CURSOR_LENGTH = 512;
/** `<base64url payload>.<base64url tag>`; a 16-byte tag is exactly 22 characters. */
const CURSOR_SHAPE = /^([A-Za-z0-9_-]{1,480})\.([A-Za-z0-9_-]{22})$/;
/** Exactly what `Date#toISOString` writes for years 0000–9999: milliseconds, UTC, `Z`. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function invalidCursor(): AppError {
  return new AppError('invalid_cursor', 'The cursor is malformed; pass the previous next_cursor unchanged.');
}

/** A real instant written canonically: refuses `2020-02-30…`, `…T24:00…` and anything Date would reinterpret. */
function isCanonicalTimestamp(value: string): boolean {
  if (!TIMESTAMP.test(value)) return false;
  const date = new Date(value);
  return !Number.isNaN(date.getTime()) && date.toISOString() === value;
}

/**
 * Cursors signed with HMAC-SHA256 under a key derived (HKDF) from the shared secret and the list's
 * purpose. A client can only hand back what the service issued: a forged or edited cursor is refused
 * before anything reaches SQL, so no client-chosen timestamp or id is ever parsed by PostgreSQL. The
 * decoded values are checked strictly anyway, so a cursor signed by a buggy release cannot cause a 500
 * either. Changing INTERNAL_TOKEN invalidates outstanding cursors (clients start again from the first page).
 */
export function cursorCodec(options: CursorCodecOptions): CursorCodec {
  const key = Buffer.from(hkdfSync('sha256', options.secret, 'idv-cursor', `cursor:${options.purpose}`, 32));
  const tagOf = (payload: string) =>
    createHmac('sha256', key).update(payload).digest().subarray(0, TAG_BYTES).toString('base64url');
  const isValid = (createdAt: unknown, id: unknown): boolean =>
    typeof createdAt === 'string' && typeof id === 'string' && isCanonicalTimestamp(createdAt) && options.idPattern.test(id);

  return {
    encode(cursor) {
      // Our own rows: a failure here is a bug to surface, not a client error.
      if (!isValid(cursor.createdAt, cursor.id)) throw new Error(`refusing to encode a malformed cursor for ${options.purpose}`);
      const payload = Buffer.from(JSON.stringify([cursor.createdAt, cursor.id])).toString('base64url');
      return `${payload}.${tagOf(payload)}`;
    },

    decode(raw) {
      if (typeof raw !== 'string' || raw.length > MAX_CURSOR_LENGTH) throw invalidCursor();
      const match = CURSOR_SHAPE.exec(raw);
      if (!match) throw invalidCursor();
      const [, payload, tag] = match as unknown as [string, string, string];
      // Compared as text: a tag whose last character differs only in unused bits is refused too.
      if (!safeEqual(tagOf(payload), tag)) throw invalidCursor();
      let value: unknown;
      try {
        value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        throw invalidCursor();
      }
      if (!Array.isArray(value) || value.length !== 2 || !isValid(value[0], value[1])) throw invalidCursor();
      return { createdAt: value[0] as string, id: value[1] as string };
    },
  };
}

/** Turns `limit + 1` fetched rows into a page, with the signed cursor of the last row returned. */
export function toPage<Row, Item>(
  rows: Row[],
  limit: number,
  toItem: (row: Row) => Item,
  cursorOf: (row: Row) => Cursor,
  codec: CursorCodec,
): { object: 'list'; data: Item[]; has_more: boolean; next_cursor?: string } {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    object: 'list',
    data: pageRows.map(toItem),
    has_more: hasMore,
    ...(hasMore && last ? { next_cursor: codec.encode(cursorOf(last)) } : {}),
  };
}
