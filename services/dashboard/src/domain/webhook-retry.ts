import { WEBHOOK_RETRY_MAX_RANGE_DAYS } from '@idv/contracts';
import { argentinaInstant } from './webhooks';

/** The retry form's fields: Argentina's wall-clock minutes as `datetime-local` writes them (YYYY-MM-DDTHH:MM). */
export interface RetryInput {
  from: string;
  to: string;
}

export type RetryFormProblem = 'required' | 'invalid_date' | 'not_after' | 'too_long';
export type RetryFormErrors = Partial<Record<keyof RetryInput, RetryFormProblem>>;

const HOUR = 3_600_000;

/** A moment as the form's `datetime-local` value, in Argentina's time (UTC−3 all year). */
export function argentinaLocal(at: Date): string {
  return new Date(at.getTime() - 3 * HOUR).toISOString().slice(0, 16);
}

/** The form's values when nothing was sent: the last 24 hours. */
export function defaultRetryInput(now = new Date()): RetryInput {
  return { from: argentinaLocal(new Date(now.getTime() - 24 * HOUR)), to: argentinaLocal(now) };
}

/**
 * The range the form asks for, as the instants the service takes. "Until 10:15" includes the minute 10:15, as
 * the delivery log's filter; the range is at most WEBHOOK_RETRY_MAX_RANGE_DAYS days.
 */
export function parseRetryForm(fields: Record<string, string>): {
  input: RetryInput;
  errors: RetryFormErrors;
  range: { from: string; to: string } | null;
} {
  const input = { from: (fields.from ?? '').trim().slice(0, 64), to: (fields.to ?? '').trim().slice(0, 64) };
  const errors: RetryFormErrors = {};
  const from = input.from ? argentinaInstant(input.from) : null;
  const toMinute = input.to ? argentinaInstant(input.to) : null;
  if (!input.from) errors.from = 'required';
  else if (!from) errors.from = 'invalid_date';
  if (!input.to) errors.to = 'required';
  else if (!toMinute) errors.to = 'invalid_date';
  if (!from || !toMinute) return { input, errors, range: null };
  const to = new Date(Date.parse(toMinute) + 60_000).toISOString();
  if (Date.parse(to) <= Date.parse(from)) errors.to = 'not_after';
  else if (Date.parse(to) - Date.parse(from) > WEBHOOK_RETRY_MAX_RANGE_DAYS * 24 * HOUR) errors.to = 'too_long';
  return { input, errors, range: Object.keys(errors).length ? null : { from, to } };
}
