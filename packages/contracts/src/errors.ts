import { z } from './zod';

/**
 * The closed set of problem codes. Clients program against `code`; the status of each is fixed here
 * and nowhere else (docs/api.md "Errors").
 */
export const ERROR_STATUS = {
  invalid_json: 400,
  unauthorized: 401,
  insufficient_balance: 402,
  account_inactive: 403,
  insufficient_scope: 403,
  evidence_link_invalid: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  session_terminal: 409,
  link_redeemed: 410,
  link_expired: 410,
  evidence_link_expired: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  config_not_published: 422,
  invalid_cursor: 422,
  rate_limited: 429,
  internal_error: 500,
  upstream_unavailable: 502,
  service_unavailable: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

export const ERRORS_DOC_URL = 'https://docs.idv.example/errors';

export const FieldErrorSchema = z.object({ path: z.string(), message: z.string() });
export type FieldError = z.infer<typeof FieldErrorSchema>;

export const ProblemSchema = z
  .object({
    type: z.string().openapi({ example: `${ERRORS_DOC_URL}#validation_failed` }),
    title: z.string(),
    status: z.number().int(),
    code: z.enum(ERROR_CODES),
    detail: z.string(),
    request_id: z.string().optional(),
    required_scope: z.string().optional(),
    errors: z.array(FieldErrorSchema).optional(),
  })
  .openapi('Problem');
export type Problem = z.infer<typeof ProblemSchema>;

/** The gateway's deliberate, indistinguishable answer to a missing, unknown or revoked key. */
export const ForbiddenSchema = z
  .object({ message: z.literal('Forbidden') })
  .strict()
  .openapi('Forbidden');
export const FORBIDDEN_BODY = { message: 'Forbidden' } as const;

export function problem(
  code: ErrorCode,
  detail: string,
  extra: { request_id?: string; required_scope?: string; errors?: FieldError[] } = {},
): Problem {
  return {
    type: `${ERRORS_DOC_URL}#${code}`,
    title: code,
    status: ERROR_STATUS[code],
    code,
    detail,
    ...extra,
  };
}
