import type { ComponentChildren, VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import QRCode from 'qrcode';
import { messages, type Locale, type Messages } from '../../domain/i18n';
import type { FlowPage, StatusPage } from '../../domain/pages';
import type { ReasonCode } from '../../domain/reason-codes';
import { CAPTURE_SCRIPT_PATH, PROGRESS_SCRIPT_PATH, STYLESHEET_PATH } from '../pages';
import { FlowForm } from './common';
import { StepBodyView } from './step-body';

/**
 * A page that waits for the server (a reading, a face verdict, the registry): without JavaScript it
 * reloads itself every `refreshSeconds`; with it, `progress.js` asks `url` for the flow's version four
 * times as often and reloads as soon as it differs from the one the page was rendered from, so the
 * person sees the verdict when it is there rather than at the next tick.
 */
interface Waiting {
  refreshSeconds: number;
  url: string;
  version: number;
}

function Layout(props: {
  t: Messages;
  title: string;
  testMode: boolean;
  /** The flow has a code step: the test banner tells the code. */
  testCode?: boolean;
  /** A try of a draft from the dashboard. */
  tryRun?: boolean;
  waiting?: Waiting | undefined;
  camera?: boolean;
  children: ComponentChildren;
}) {
  const { t, waiting } = props;
  return (
    <html lang={t.htmlLang}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <meta name="robots" content="noindex, nofollow" />
        {waiting ? (
          <>
            <noscript>
              <meta http-equiv="refresh" content={String(waiting.refreshSeconds)} />
            </noscript>
            <script src={PROGRESS_SCRIPT_PATH} defer></script>
          </>
        ) : null}
        <title>{`${props.title} · ${t.serviceName}`}</title>
        <link rel="stylesheet" href={STYLESHEET_PATH} />
        {props.camera ? <script src={CAPTURE_SCRIPT_PATH} defer></script> : null}
      </head>
      <body>
        <header class="top">
          <p class="brand">{t.serviceName}</p>
          {props.testMode ? (
            <p class="test-banner" role="note">
              {props.tryRun ? t.tryBanner + ' ' : null}
              {props.testCode ? t.testBannerCode : t.testBanner}
            </p>
          ) : null}
        </header>
        {waiting ? (
          <main
            id="main"
            data-wait-url={waiting.url}
            data-wait-version={waiting.version}
            data-wait-every-ms={(waiting.refreshSeconds * 1000) / 4}
          >
            {props.children}
          </main>
        ) : (
          <main id="main">{props.children}</main>
        )}
      </body>
    </html>
  );
}

/** A whole page: the doctype, then the document. */
const page = (node: VNode) => `<!doctype html>${renderToString(node)}`;

/** What a camera page's "continue on your phone" section shows: the URL, its QR code as SVG, its lifetime. */
export interface HandoverOffer {
  url: string;
  /** The QR code of `url`, an SVG document made by the `qrcode` library from the URL alone. */
  svg: string;
  expiresInMs: number;
}

/**
 * "No camera here? Continue on your phone": the hand-over URL as an inline SVG QR code (no script, no
 * image request: the page's CSP stays as it is) and as text, for a person who can type or send it.
 */
export async function handoverOffer(url: string, expiresInMs: number): Promise<HandoverOffer> {
  const svg = await QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2, width: 200 });
  return { url, svg, expiresInMs };
}

function HandoverSection(props: { t: Messages; offer: HandoverOffer }) {
  const t = props.t.handover;
  const minutes = Math.max(1, Math.round(props.offer.expiresInMs / 60_000));
  return (
    <section class="handover" aria-labelledby="handover-title">
      <h2 id="handover-title">{t.title}</h2>
      <p>{t.intro}</p>
      {/* The one markup not written here: the QR library's SVG of our own URL (no person's input in it). */}
      <div class="handover-qr" role="img" aria-label={t.qrLabel} dangerouslySetInnerHTML={{ __html: props.offer.svg }}></div>
      <p>{t.link}</p>
      <p class="handover-url">
        <a href={props.offer.url} data-handover-url="">
          {props.offer.url}
        </a>
      </p>
      <p class="hint">{t.validity(minutes)}</p>
    </section>
  );
}

export function renderFlowPage(flow: FlowPage, locale: Locale, handover?: HandoverOffer): string {
  const t = messages(locale);
  const to = { sessionId: flow.sessionId, csrfToken: flow.csrfToken, stepId: flow.stepId };
  return page(
    <Layout
      t={t}
      title={flow.view.title}
      testMode={flow.testMode}
      testCode={flow.testCode}
      tryRun={flow.tryRun}
      waiting={
        flow.view.refreshSeconds
          ? { refreshSeconds: flow.view.refreshSeconds, url: `/s/${flow.sessionId}/version`, version: flow.version }
          : undefined
      }
      camera={flow.view.capture !== undefined}
    >
      <p class="progress">
        {t.stepOf(flow.progress.index, flow.progress.total)}
        {flow.view.photo ? ` · ${t.photoOf(flow.view.photo.index, flow.view.photo.total)}` : null}
      </p>
      <h1>{flow.view.title}</h1>
      <StepBodyView t={t} to={to} body={flow.view.body} />
      {handover ? <HandoverSection t={t} offer={handover} /> : null}
      {flow.canLeaveOption ? (
        <FlowForm to={to} novalidate>
          <input type="hidden" name="action" value="leave_option" />
          <button type="submit" class="link">
            {t.chooseOther}
          </button>
        </FlowForm>
      ) : null}
    </Layout>,
  );
}

const STATUS_COPY: Record<StatusPage, (t: Messages) => { title: string; body: string }> = {
  approved: (t) => ({ title: t.doneTitle, body: t.doneBody }),
  rejected: (t) => ({ title: t.failedTitle, body: t.failedBody }),
  used: (t) => ({ title: t.usedTitle, body: t.usedBody }),
  expired: (t) => ({ title: t.expiredTitle, body: t.expiredBody }),
  abandoned: (t) => ({ title: t.abandonedTitle, body: t.abandonedBody }),
  canceled: (t) => ({ title: t.canceledTitle, body: t.canceledBody }),
  finished: (t) => ({ title: t.finishedTitle, body: t.finishedBody }),
  not_found: (t) => ({ title: t.notFoundTitle, body: t.notFoundBody }),
  csrf: (t) => ({ title: t.csrfTitle, body: t.csrfBody }),
  throttled: (t) => ({ title: t.throttledTitle, body: t.throttledBody }),
  moved: (t) => ({ title: t.movedTitle, body: t.movedBody }),
  handover_invalid: (t) => ({ title: t.handoverInvalidTitle, body: t.handoverInvalidBody }),
};

/**
 * What went wrong, one line per reason the person can act on (the same words for every cue behind a
 * reason), and what to do next: the advice of the first reason that has its own, else the general one.
 */
function RejectionDetails(props: { t: Messages; reasons: readonly ReasonCode[] }) {
  const { t, reasons } = props;
  const lines = [...new Set(reasons.map((reason) => t.rejection.reasons[reason]).filter((line) => !!line))];
  if (lines.length === 0) return null;
  const advice = reasons.map((reason) => t.rejection.advice[reason]).find((line) => !!line) ?? t.rejection.adviceDefault;
  return (
    <>
      <h2>{t.rejection.whatHappened}</h2>
      <ul class="reasons">
        {lines.map((line) => (
          <li>{line}</li>
        ))}
      </ul>
      <h2>{t.rejection.whatToDo}</h2>
      <p>{advice}</p>
    </>
  );
}

/** `dataPage`: what tests and support read the page as (`preview` for the neutral page of a link preview). */
export function renderStatusPage(
  status: StatusPage,
  locale: Locale,
  options: { testMode: boolean; sessionId?: string; reasons?: readonly ReasonCode[] | undefined; dataPage?: string },
): string {
  const t = messages(locale);
  const copy = STATUS_COPY[status](t);
  return page(
    <Layout t={t} title={copy.title} testMode={options.testMode}>
      <h1>{copy.title}</h1>
      <p class="status-body" data-page={options.dataPage ?? status}>
        {copy.body}
      </p>
      {status === 'rejected' ? <RejectionDetails t={t} reasons={options.reasons ?? []} /> : null}
      {status === 'csrf' && options.sessionId ? (
        <p>
          <a href={`/s/${options.sessionId}`}>{t.backToFlow}</a>
        </p>
      ) : null}
    </Layout>,
  );
}

export function renderErrorPage(locale: Locale, retryPath: string | null, body?: string): string {
  const t = messages(locale);
  return page(
    <Layout t={t} title={t.errorTitle} testMode={false}>
      <h1>{t.errorTitle}</h1>
      <p class="status-body" data-page="error">
        {body ?? t.errorBody}
      </p>
      {retryPath ? (
        <p>
          <a href={retryPath}>{t.tryAgain}</a>
        </p>
      ) : null}
    </Layout>,
  );
}
