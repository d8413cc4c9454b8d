import type { FieldError } from '@idv/contracts';
import type { z } from 'zod';
import { AppError } from '../errors';

export function zodIssuesToFieldErrors(issues: readonly z.core.$ZodIssue[], prefix = ''): FieldError[] {
  return issues.map((issue) => {
    const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
    if (issue.code === 'unrecognized_keys') {
      return { path: path || '(root)', message: `unknown field(s): ${issue.keys.join(', ')}` };
    }
    return { path: path || '(root)', message: issue.message };
  });
}

/** Parses `value` or throws 422 `validation_failed` listing every bad field. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: 'body' | 'query' | 'params' | 'headers',
): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors = zodIssuesToFieldErrors(result.error.issues, where === 'body' ? '' : where);
  throw new AppError(
    'validation_failed',
    `The request ${where} is invalid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
    {
      errors,
    },
  );
}
