import type { Request, RequestHandler, Response } from 'express';
import type { Locale, Messages } from '../domain/i18n';
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
