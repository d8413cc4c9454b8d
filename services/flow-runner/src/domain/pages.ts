import type { SessionId } from '@idv/contracts';
import type { OfferedToken } from './handover';
import type { ReasonCode } from './reason-codes';
import type { StepView } from './view';

/** What the use cases answer with, for the HTTP layer to draw: a step's page, a status page, a redirect. */

/** Pages that are not the flow itself: why the person cannot (or no longer needs to) continue. */
export type StatusPage =
  | 'approved'
  | 'rejected'
  | 'used'
  | 'expired'
  | 'abandoned'
  | 'canceled'
  | 'finished'
  | 'not_found'
  | 'csrf'
  | 'throttled'
  /** This browser handed the flow over to another device. */
  | 'moved'
  /** A hand-over code that expired, was used or never existed. */
  | 'handover_invalid';

export interface FlowPage {
  kind: 'flow';
  sessionId: SessionId;
  testMode: boolean;
  /** Test mode with a code step somewhere in the flow: the banner tells the test code. */
  testCode: boolean;
  /** A try of a draft from the dashboard: the banner says so. */
  tryRun: boolean;
  csrfToken: string;
  stepId: string;
  view: StepView;
  progress: { index: number; total: number };
  /** The person is inside an option of a choice and may go back to the list. */
  canLeaveOption: boolean;
  hasErrors: boolean;
  /** The stored flow's version this page was rendered from: a waiting page reloads when it changes. */
  version: number;
  /** A camera page's offer to continue on another device (its token is stored, as a hash, before it is shown). */
  handover?: OfferedToken;
}

export type ShowResult =
  | FlowPage
  | {
      kind: 'status';
      page: StatusPage;
      testMode: boolean;
      sessionId?: SessionId;
      /** A rejection's reason codes: the page says what went wrong in the person's words. */
      reasons?: readonly ReasonCode[];
    };
export type OpenResult =
  { kind: 'redirect'; sessionId: SessionId; bindingSecret?: string } | { kind: 'status'; page: StatusPage };
export type SubmitResult = ShowResult | { kind: 'redirect'; sessionId: SessionId };
export type SubmissionAdmission =
  | { kind: 'admitted'; acceptsCsrf: (presented: string | undefined) => boolean }
  | { kind: 'status'; page: StatusPage; testMode: boolean };
export type HandOverResult =
  { kind: 'moved'; sessionId: SessionId; bindingSecret: string } | { kind: 'status'; page: 'handover_invalid' | 'finished' };
