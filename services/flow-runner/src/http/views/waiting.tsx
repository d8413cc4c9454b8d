import type { SessionId } from '@idv/contracts';
import type { StepBody } from '../../domain/view';

/** A page that waits for the server; it reloads itself (the layout's refresh), or the person looks again. */
export function WaitingView(props: { sessionId: SessionId; body: Extract<StepBody, { kind: 'waiting' }> }) {
  const { body } = props;
  return (
    <>
      {body.alert ? (
        <p class="alert" role="alert">
          {body.alert}
        </p>
      ) : null}
      <p role="status" class="processing">
        {body.text}
      </p>
      <p>
        <a href={`/s/${props.sessionId}`} class="button secondary">
          {body.refresh}
        </a>
      </p>
    </>
  );
}
