import type { BalanceLedger } from '@idv/contracts';
import { renderPage, TableRegion, timeOf, type SignedInView } from './layout';

/** The low-balance alert's form as the last request left it: saved, or a value refused (422). */
export interface ThresholdForm {
  saved?: boolean;
  invalid?: boolean;
  value?: string;
}

/** The account's tokens: the balance with how long it lasts, and the ledger newest first (older pages by a cursor). */
export function balancePage(
  view: SignedInView & {
    ledger: BalanceLedger;
    daysLeft: number | null;
    before: number | null;
    /** `editable`: the viewer may change the alert (owners). */
    threshold: ThresholdForm & { editable: boolean };
  },
): string {
  const b = view.messages.balance;
  const n = view.messages.notices.threshold;
  const form = view.threshold;
  const { ledger } = view;
  const last = ledger.data[ledger.data.length - 1];
  return renderPage(
    {
      locale: view.locale,
      messages: view.messages,
      title: b.title,
      signedIn: { accountName: view.account.name, csrfToken: view.csrfToken, section: 'balance', team: view.team },
    },
    <>
      <h1>{b.title}</h1>
      <p class="lead">{b.lead}</p>
      <h2>{b.current}</h2>
      <p class="balance">
        <strong>{b.tokens(ledger.balance)}</strong>
      </p>
      <p role="status">{ledger.balance <= 0 ? b.spent : view.daysLeft === null ? b.noPace : b.daysLeft(view.daysLeft)}</p>
      <section aria-labelledby="threshold-title">
        <h2 id="threshold-title">{n.title}</h2>
        <p>{n.lead}</p>
        <p>{n.current(ledger.threshold, ledger.default_threshold)}</p>
        {form.saved ? (
          <p class="notice" role="status">
            {n.saved}
          </p>
        ) : null}
        {form.editable ? (
          <>
            {form.invalid ? (
              <div class="error-summary" role="alert" tabIndex={-1} id="error-summary">
                <h3>{view.messages.errorSummary}</h3>
                <ul>
                  <li>
                    <a href="#f-threshold">{n.invalid}</a>
                  </li>
                </ul>
              </div>
            ) : null}
            <form method="post" action="/balance/threshold" novalidate>
              <input type="hidden" name="_csrf" value={view.csrfToken} />
              <div class={form.invalid ? 'field invalid' : 'field'}>
                <label for="f-threshold">{n.label}</label>
                <p class="hint" id="h-threshold">
                  {n.hint(ledger.default_threshold)}
                </p>
                {form.invalid ? (
                  <p class="field-error" id="e-threshold">
                    {n.invalid}
                  </p>
                ) : null}
                <input
                  id="f-threshold"
                  name="threshold"
                  type="text"
                  inputMode="numeric"
                  autocomplete="off"
                  maxLength={40}
                  value={form.value ?? (ledger.threshold === null ? '' : String(ledger.threshold))}
                  aria-describedby={form.invalid ? 'h-threshold e-threshold' : 'h-threshold'}
                  {...(form.invalid ? { 'aria-invalid': 'true' } : {})}
                />
              </div>
              <button type="submit">{n.save}</button>
            </form>
          </>
        ) : (
          <p>{n.ownersOnly}</p>
        )}
      </section>
      <h2>{b.ledgerTitle}</h2>
      {ledger.data.length === 0 ? (
        <p>{b.noEntries}</p>
      ) : (
        <TableRegion label={b.ledgerTitle}>
          <table>
            <thead>
              <tr>
                <th scope="col">{b.columns.at}</th>
                <th scope="col">{b.columns.movement}</th>
                <th scope="col">{b.columns.tokens}</th>
                <th scope="col">{b.columns.detail}</th>
              </tr>
            </thead>
            <tbody>
              {ledger.data.map((entry) => (
                <tr>
                  <td>
                    <time dateTime={entry.created_at}>{timeOf(view.locale, entry.created_at, 'second')}</time>
                  </td>
                  <td>{entry.kind === 'credit' ? b.credit : b.debit}</td>
                  <td>{entry.kind === 'credit' ? `+${entry.tokens}` : `−${entry.tokens}`}</td>
                  <td>{entry.kind === 'credit' ? (entry.reason ?? '') : <code>{entry.session_id}</code>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
      <p>
        {view.before !== null ? <a href="/balance">{b.newest}</a> : null}{' '}
        {ledger.has_more && last ? <a href={`/balance?before=${last.id}`}>{b.older}</a> : null}
      </p>
    </>,
  );
}
