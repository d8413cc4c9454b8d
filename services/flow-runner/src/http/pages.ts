import QRCode from 'qrcode';
import type { FlowPage, StatusPage } from '../domain/pages';
import { messages, type Locale, type Messages } from '../domain/i18n';
import type { ReasonCode } from '../domain/reason-codes';
import { flowForm, html, raw, type SafeHtml } from '../domain/view';

export const STYLESHEET_PATH = '/assets/flow.css';
export const CAPTURE_SCRIPT_PATH = '/assets/capture.js';
export const PROGRESS_SCRIPT_PATH = '/assets/progress.js';

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

function layout(
  t: Messages,
  options: {
    title: string;
    testMode: boolean;
    /** The flow has a code step: the test banner tells the code. */
    testCode?: boolean;
    main: SafeHtml;
    waiting?: Waiting | undefined;
    camera?: boolean;
  },
): string {
  const waiting = options.waiting;
  return html`<!doctype html>
    <html lang="${t.htmlLang}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <meta name="robots" content="noindex, nofollow" />
        ${
          waiting
            ? html`<noscript><meta http-equiv="refresh" content="${waiting.refreshSeconds}" /></noscript>
                <script src="${PROGRESS_SCRIPT_PATH}" defer></script>`
            : ''
        }
        <title>${options.title} · ${t.serviceName}</title>
        <link rel="stylesheet" href="${STYLESHEET_PATH}" />
        ${options.camera ? html`<script src="${CAPTURE_SCRIPT_PATH}" defer></script>` : ''}
      </head>
      <body>
        <header class="top">
          <p class="brand">${t.serviceName}</p>
          ${
            options.testMode
              ? html`<p class="test-banner" role="note">${options.testCode ? t.testBannerCode : t.testBanner}</p>`
              : ''
          }
        </header>
        ${
          waiting
            ? html`<main
                id="main"
                data-wait-url="${waiting.url}"
                data-wait-version="${waiting.version}"
                data-wait-every-ms="${(waiting.refreshSeconds * 1000) / 4}"
              >
                ${options.main}
              </main>`
            : html`<main id="main">${options.main}</main>`
        }
      </body>
    </html> `.toString();
}

/**
 * "No camera here? Continue on your phone": the hand-over URL as an inline SVG QR code (no script, no
 * image request: the page's CSP stays as it is) and as text, for a person who can type or send it.
 */
export async function handoverSection(locale: Locale, url: string, expiresInMs: number): Promise<SafeHtml> {
  const t = messages(locale).handover;
  const svg = await QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2, width: 200 });
  const minutes = Math.max(1, Math.round(expiresInMs / 60_000));
  return html`<section class="handover" aria-labelledby="handover-title">
    <h2 id="handover-title">${t.title}</h2>
    <p>${t.intro}</p>
    <div class="handover-qr" role="img" aria-label="${t.qrLabel}">${raw(svg)}</div>
    <p>${t.link}</p>
    <p class="handover-url"><a href="${url}" data-handover-url>${url}</a></p>
    <p class="hint">${t.validity(minutes)}</p>
  </section>`;
}

export function renderFlowPage(page: FlowPage, locale: Locale, handover?: SafeHtml): string {
  const t = messages(locale);
  const leave = page.canLeaveOption
    ? flowForm(
        page.sessionId,
        page.csrfToken,
        page.stepId,
        html`<input type="hidden" name="action" value="leave_option" /><button type="submit" class="link">
            ${t.chooseOther}
          </button>`,
        { novalidate: true },
      )
    : '';
  return layout(t, {
    title: page.view.title,
    testMode: page.testMode,
    testCode: page.testCode,
    waiting: page.view.refreshSeconds
      ? { refreshSeconds: page.view.refreshSeconds, url: `/s/${page.sessionId}/version`, version: page.version }
      : undefined,
    camera: page.view.capture !== undefined,
    main: html`<p class="progress">
        ${t.stepOf(page.progress.index, page.progress.total)}${
          page.view.photo ? html` · ${t.photoOf(page.view.photo.index, page.view.photo.total)}` : ''
        }
      </p>
      <h1>${page.view.title}</h1>
      ${page.view.body} ${handover ?? ''} ${leave}`,
  });
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

export function renderStatusPage(
  page: StatusPage,
  locale: Locale,
  options: { testMode: boolean; sessionId?: string; reasons?: readonly ReasonCode[] | undefined },
): string {
  const t = messages(locale);
  const copy = STATUS_COPY[page](t);
  const back = page === 'csrf' && options.sessionId ? html`<p><a href="/s/${options.sessionId}">${t.backToFlow}</a></p>` : '';
  return layout(t, {
    title: copy.title,
    testMode: options.testMode,
    main: html`<h1>${copy.title}</h1>
      <p class="status-body" data-page="${page}">${copy.body}</p>
      ${page === 'rejected' ? rejectionDetails(t, options.reasons ?? []) : ''} ${back}`,
  });
}

/**
 * What went wrong, one line per reason the person can act on (the same words for every cue behind a
 * reason), and what to do next: the advice of the first reason that has its own, else the general one.
 */
function rejectionDetails(t: Messages, reasons: readonly ReasonCode[]): SafeHtml | '' {
  const lines = [...new Set(reasons.map((reason) => t.rejection.reasons[reason]).filter((line) => !!line))];
  if (lines.length === 0) return '';
  const advice = reasons.map((reason) => t.rejection.advice[reason]).find((line) => !!line) ?? t.rejection.adviceDefault;
  return html`<h2>${t.rejection.whatHappened}</h2>
    <ul class="reasons">
      ${lines.map((line) => html`<li>${line}</li>`)}
    </ul>
    <h2>${t.rejection.whatToDo}</h2>
    <p>${advice}</p>`;
}

export function renderErrorPage(locale: Locale, retryPath: string | null, body?: string): string {
  const t = messages(locale);
  return layout(t, {
    title: t.errorTitle,
    testMode: false,
    main: html`<h1>${t.errorTitle}</h1>
      <p class="status-body" data-page="error">${body ?? t.errorBody}</p>
      ${retryPath ? html`<p><a href="${retryPath}">${t.tryAgain}</a></p>` : ''}`,
  });
}
