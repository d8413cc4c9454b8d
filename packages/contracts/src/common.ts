import { z } from './zod';

/** ISO 8601 UTC with millisecond precision and a Z suffix, as every public timestamp. */
export const TimestampSchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
  .openapi({ example: '2026-11-22T12:00:00.000Z' });

export function toTimestamp(date: Date | string | number): string {
  return new Date(date).toISOString();
}

export const MonthSchema = z
  .string()
  .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be a month of shape YYYY-MM')
  .openapi({ example: '2026-11' });

export const PAGE_LIMIT = { min: 1, max: 100, default: 25 } as const;

export const PaginationQuerySchema = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(PAGE_LIMIT.min)
    .max(PAGE_LIMIT.max)
    .default(PAGE_LIMIT.default)
    .openapi({ param: { name: 'limit', in: 'query' }, description: 'Page size' }),
  cursor: z
    .string()
    .min(1)
    .max(512)
    .optional()
    .openapi({ param: { name: 'cursor', in: 'query' }, description: 'the previous next_cursor, unchanged' }),
});
export type PaginationQuery = z.infer<typeof PaginationQuerySchema>;

export function listSchema<T extends z.ZodTypeAny>(item: T, name: string) {
  return z
    .object({
      object: z.literal('list'),
      data: z.array(item),
      has_more: z.boolean(),
      next_cursor: z.string().optional(),
    })
    .openapi(name);
}

export interface ListPage<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor?: string;
}

export const QueuedSchema = z.object({ queued: z.literal(true) }).openapi('Queued');
