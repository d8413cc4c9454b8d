import { MonthSchema } from './common';
import { UsageSchema } from './sessions';
import { z } from './zod';

/** Months one range of usage may span (the dashboard's chart asks for 12). */
export const USAGE_MONTHS_MAX = 24;

/** A `YYYY-MM` month as a count of months since year 0: the distance of two months is a subtraction. */
export function monthIndex(month: string): number {
  const [year, mon] = month.split('-').map(Number) as [number, number];
  return year * 12 + (mon - 1);
}

/** The `YYYY-MM` month `count` months after `month` (before it when negative). */
export function shiftMonth(month: string, count: number): string {
  const index = monthIndex(month) + count;
  return `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;
}

/** `from` to `to`, both included, oldest first, at most `USAGE_MONTHS_MAX` months. */
export const UsageMonthsQuerySchema = z
  .object({ from: MonthSchema, to: MonthSchema })
  .refine(({ from, to }) => monthIndex(from) <= monthIndex(to), { message: 'from must not be after to', path: ['from'] })
  .refine(({ from, to }) => monthIndex(to) - monthIndex(from) < USAGE_MONTHS_MAX, {
    message: `at most ${USAGE_MONTHS_MAX} months`,
    path: ['from'],
  });

/** Each month of the range, oldest first, empty months included: each one the public `GET /v1/usage` of that month. */
export const UsageMonthsSchema = z.object({ object: z.literal('list'), data: z.array(UsageSchema) });
export type UsageMonths = z.infer<typeof UsageMonthsSchema>;
