import type { TimelineEntry } from '@idv/contracts';
import type { Locale, Messages } from '../../domain/i18n';
import type { TimelineItem } from '../../domain/timeline';
import { timeOf } from './layout';

/** A session's timeline: an ordered list, each line its time, what happened and its details. */
export function TimelineList(props: { locale: Locale; messages: Messages; items: TimelineItem[] }) {
  return (
    <ol class="timeline">
      {props.items.map((item) => (
        <li>
          <time dateTime={item.at}>{timeOf(props.locale, item.at, 'second')}</time>{' '}
          <TimelineLine messages={props.messages} item={item} />
        </li>
      ))}
    </ol>
  );
}

function TimelineLine(props: { messages: Messages; item: TimelineItem }) {
  const s = props.messages.sessions;
  const t = s.timeline;
  const { item } = props;
  switch (item.kind) {
    case 'created':
      return <>{item.keyName ? t.createdWith(item.keyName) : item.isTry ? t.createdTry : t.created}</>;
    case 'completed':
      return (
        <>
          <strong>{t.completed(s.statuses[item.status])}</strong>
          {item.reasonCodes.length > 0 ? (
            <>
              {' '}
              ·{' '}
              {item.reasonCodes.map((code) => (
                <code>{code}</code>
              ))}
            </>
          ) : null}
        </>
      );
    case 'delivery': {
      const { delivery } = item;
      return (
        <>
          {t.delivery(delivery.event_type, delivery.attempt)}:{' '}
          {delivery.status === 'succeeded' && delivery.http_status !== null
            ? t.deliveryOk(delivery.http_status, delivery.duration_ms ?? 0)
            : t.deliveryFailed(delivery.failure_reason ?? delivery.error ?? String(delivery.http_status ?? ''))}{' '}
          · <a href={`/webhooks/${delivery.endpoint_id}/deliveries/${delivery.id}`}>{t.deliveryDetail}</a>
        </>
      );
    }
    case 'flow':
      return <FlowLine messages={props.messages} entry={item.entry} />;
  }
}

function FlowLine(props: { messages: Messages; entry: TimelineEntry }) {
  const t = props.messages.sessions.timeline;
  const { entry } = props;
  const details: string[] = [];
  if (entry.step_id) details.push(`${t.step} ${entry.step_id}${entry.step_type ? ` (${entry.step_type})` : ''}`);
  if (entry.device) details.push(t.devices[entry.device]);
  if (entry.capture) details.push(t.captures[entry.capture]);
  if (entry.attempt !== undefined) details.push(t.attempt(entry.attempt));
  if (entry.verdict) details.push(props.messages.sessions.detail.verdicts[entry.verdict]);
  if (entry.result) details.push(t.results[entry.result]);
  if (entry.channel) details.push(`${t.channel} ${entry.channel}`);
  if (entry.outcome) details.push(`${t.outcome} ${entry.outcome}`);
  return (
    <>
      {t.kinds[entry.kind]}
      {details.length > 0 ? ` · ${details.join(' · ')}` : ''}
      {entry.reason ? (
        <>
          {' '}
          · <code>{entry.reason}</code>
        </>
      ) : null}
      {entry.reason_codes && entry.reason_codes.length > 0 ? (
        <>
          {' '}
          · {t.reasons}:{' '}
          {entry.reason_codes.map((code) => (
            <code>{code}</code>
          ))}
        </>
      ) : null}
      {entry.message_key ? (
        <>
          {' '}
          · {t.messageShown}:{' '}
          {/* The text the person read, in the reader's language (the flow-runner's catalogue); the key when it has none. */}
          {entry.message ? <q>{entry.message}</q> : <code>{entry.message_key}</code>}
        </>
      ) : null}
      {entry.cause ? (
        <>
          {' '}
          · <code>{entry.cause}</code>
        </>
      ) : null}
      {entry.retry_at ? (
        <>
          {' '}
          · {t.retryAt} {entry.retry_at}
        </>
      ) : null}
    </>
  );
}
