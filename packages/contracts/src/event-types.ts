/** The session events a project subscribes to, apart from their schemas (the browser bundle takes these alone). */
export const SESSION_EVENT_TYPES = [
  'verification_session.approved',
  'verification_session.rejected',
  'verification_session.completed',
  'verification_session.expired',
  'verification_session.canceled',
  'verification_session.review_required',
  'verification_session.created',
] as const;
