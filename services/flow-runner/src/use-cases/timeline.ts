import type { AccountId, FlowTimeline, FlowTimelineQuery, SessionId } from '@idv/contracts';
import { messageText } from '../domain/message-text';
import type { SessionsPort, TimelinePort } from '../domain/ports';

/** What reading a session's timeline needs: the timeline, and the sessions service for a link never opened. */
export interface FlowTimelineDeps {
  timeline: TimelinePort;
  sessions: Pick<SessionsPort, 'get'>;
}

/**
 * A session's timeline for the dashboard's session page, oldest first. Only the account's own: the
 * entries are read by account and session. A session with no entry is either one whose flow this service
 * holds (opened before timelines were kept, or a page after the last entry), or one whose link was never
 * opened, which only the sessions service knows: asked, it says whose session it is. Anything else (no
 * such session, another account's) is null, answered 404 like any id of another account.
 */
export class FlowTimelines {
  constructor(private readonly deps: FlowTimelineDeps) {}

  async of(accountId: AccountId, sessionId: SessionId, query: FlowTimelineQuery): Promise<FlowTimeline | null> {
    const page = await this.deps.timeline.page(accountId, sessionId, query.after ?? null, query.limit);
    const { locale } = query;
    // The text the person saw, in the reader's language, when asked for: the catalogue is this service's.
    const data = locale
      ? page.entries.map((entry) => {
          const message = entry.message_key ? messageText(locale, entry.message_key) : undefined;
          return message === undefined ? entry : { ...entry, message };
        })
      : page.entries;
    const answer: FlowTimeline = { object: 'list', session_id: sessionId, data, has_more: page.hasMore };
    if (page.entries.length > 0 || (await this.deps.timeline.hasFlow(accountId, sessionId))) return answer;
    const session = await this.deps.sessions.get(sessionId);
    return session?.account_id === accountId ? answer : null;
  }
}
