import type { StatusPage } from '../domain/pages';

/** The pages' own assets (the CSP allows nothing else) and the HTTP status of each page; the pages themselves are `views/`. */

export const STYLESHEET_PATH = '/assets/flow.css';
export const CAPTURE_SCRIPT_PATH = '/assets/capture.js';
export const PROGRESS_SCRIPT_PATH = '/assets/progress.js';

/** HTTP status of each page that is not the flow. */
export const STATUS_CODE: Record<StatusPage, number> = {
  approved: 200,
  rejected: 200,
  used: 403,
  expired: 410,
  abandoned: 410,
  canceled: 410,
  finished: 410,
  not_found: 404,
  csrf: 403,
  throttled: 429,
  // The flow goes on, elsewhere: the browser's binding conflicts with the flow's current one.
  moved: 409,
  handover_invalid: 410,
};
