import type { IncomingMessage } from 'node:http';
import { discardUnreadBody } from '@idv/kit';
import getRawBody from 'raw-body';
import { BadRequest } from './bad-request';

/** A step's form is a few fields; anything bigger is refused before it is read whole. */
const FORM_LIMIT_BYTES = 32 * 1024;
const FORM_MAX_FIELDS = 100;

/**
 * The submitted form as the flow reads it: urlencoded fields, the first value of a repeated name. A
 * body of another type is not read (the submission then fails the CSRF check like an empty form).
 */
export async function readForm(req: IncomingMessage): Promise<Record<string, string>> {
  const type = (req.headers['content-type'] ?? '').split(';', 1)[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    if (!(await discardUnreadBody(req)))
      throw new BadRequest(413, `a ${type ?? 'typeless'} body over the bounds of one dropped unread`);
    return {};
  }
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
    throw new BadRequest(415, `content-encoding ${encoding} is not accepted`);
  }
  const text = await getRawBody(req, {
    limit: FORM_LIMIT_BYTES,
    encoding: 'utf-8',
    ...(req.headers['content-length'] ? { length: req.headers['content-length'] } : {}),
  });
  const input: Record<string, string> = {};
  let fields = 0;
  for (const [name, value] of new URLSearchParams(text)) {
    if (++fields > FORM_MAX_FIELDS) throw new BadRequest(413, 'too many form fields');
    if (!(name in input)) input[name] = value;
  }
  return input;
}
