import { z } from './zod';

/**
 * Characters PostgreSQL cannot store in `text` or `jsonb`: NUL, and UTF-16 surrogates that are not
 * part of a pair (JSON.stringify escapes them, and jsonb refuses the escape). Input carrying them is
 * refused where it enters (422 in the API, a field error in the person's pages), never sent to SQL.
 */
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function hasUnstorableCharacters(value: string): boolean {
  return UNSTORABLE.test(value);
}

export const UNSTORABLE_MESSAGE = 'must not contain NUL or unpaired surrogate characters';

/** A string schema that refuses characters the store cannot keep. */
export const storableString = () => z.string().refine((value) => !hasUnstorableCharacters(value), UNSTORABLE_MESSAGE);

/** Length in Unicode characters (code points), as people and the spec count them, not UTF-16 units or bytes. */
export const characterCount = (value: string): number => {
  let count = 0;
  for (const _ of value) count++;
  return count;
};
