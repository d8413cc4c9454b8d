import type { Request, RequestHandler, Response } from 'express';
import type { Locale, Messages } from '../domain/i18n';
import { can } from '../domain/roles';
import type { OperatorViewer } from '../use-cases/operators';
import type { Viewer } from '../use-cases/sign-in';
import type { Cookies } from './security';

export interface PageState {
  locale: Locale;
  messages: Messages;
  address: string;
  viewer: Viewer | null;
  /** Looked up on the operator console's paths only. */
  operator: OperatorViewer | null;
}

export const stateOf = (res: Response) => res.locals.page as PageState;

/**
 * A signed-in page's view frame (`SignedInView`) but the account, which each page asks for itself (often at
 * once with its data): the page's language and words, a CSRF token, whether the team's sections show.
 */
export function viewFrame(tools: Pick<PageTools, 'csrfToken'>, req: Request, res: Response, viewer: Viewer) {
  const { locale, messages } = stateOf(res);
  return { locale, messages, csrfToken: tools.csrfToken(req, res), team: can(viewer.role, 'members.manage') };
}

/** What every page handler is built with: the cookies, CSRF tokens, form posts and the common answers. */
/** Wraps a handler that needs a signed-in person (and their account and role): the others are sent to sign in. */
export type SignedInRoute = (
  handler: (req: Request, res: Response, viewer: Viewer) => Promise<void>,
) => (req: Request, res: Response) => Promise<void>;

export interface PageTools {
  cookies: Cookies;
  csrfToken: (req: Request, res: Response) => string;
  post: (handler: (req: Request, res: Response) => Promise<void>) => RequestHandler[];
  page: (handler: (req: Request, res: Response) => Promise<void> | void) => RequestHandler;
  forbidden: (res: Response) => void;
  notFound: (res: Response) => void;
}
