import type { StatusPage } from '../domain/pages';
import type { Locale } from '../domain/i18n';

/** An error that is the person's request's fault: answered with a page and this status, never logged as a failure. */
export class BadRequest extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** What the page tells the person (else the generic "something went wrong"). */
    readonly tell?: (locale: Locale) => string,
    readonly options: {
      /** Answer with this status page instead of the error page (e.g. `csrf`). */
      page?: StatusPage;
      /** Sent as Retry-After. */
      retryAfterSeconds?: number;
    } = {},
  ) {
    super(message);
  }
}
