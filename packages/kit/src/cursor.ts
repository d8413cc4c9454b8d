import { AppError } from './errors';

/**
 * Opaque keyset cursor over (created_at, id), newest first: stable under concurrent inserts because a
 * page continues strictly after the last row seen rather than at an offset.
 */
export interface Cursor {
  createdAt: string;
  id: string;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.id])).toString('base64url');
}

export function decodeCursor(raw: string): Cursor {
  try {
    const value: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === 'string' &&
      typeof value[1] === 'string' &&
      !Number.isNaN(Date.parse(value[0]))
    ) {
      return { createdAt: value[0], id: value[1] };
    }
  } catch {
    // fall through to the problem below
  }
  throw new AppError('invalid_cursor', 'The cursor is malformed; pass the previous next_cursor unchanged.');
}

/** Turns `limit + 1` fetched rows into a page, with the cursor of the last row returned. */
export function toPage<Row, Item>(
  rows: Row[],
  limit: number,
  toItem: (row: Row) => Item,
  cursorOf: (row: Row) => Cursor,
): { object: 'list'; data: Item[]; has_more: boolean; next_cursor?: string } {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    object: 'list',
    data: pageRows.map(toItem),
    has_more: hasMore,
    ...(hasMore && last ? { next_cursor: encodeCursor(cursorOf(last)) } : {}),
  };
}
