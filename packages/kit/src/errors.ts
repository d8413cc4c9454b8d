import { ERROR_STATUS, type ErrorCode, type FieldError } from '@idv/contracts';

/** The one way to fail a request with a stable problem code; mapped to problem+json by the app. */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    detail: string,
    readonly extra: { required_scope?: string; errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }
}

export const notFound = (what = 'resource') => new AppError('not_found', `No such ${what}.`);
