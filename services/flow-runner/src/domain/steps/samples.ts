import { html, type SafeHtml } from '../view';
import type { StepContext } from './types';

/** What a sample list says, in the step's own words (document and face steps have their own). */
export interface SamplesCopy {
  samplesTitle: string;
  samplesHint: string;
  useSample: string;
}

/**
 * The test-mode list of sample captures: one small form per sample, each posting `action=sample` with
 * the sample's id and the hidden fields the step needs to know which capture it stands for.
 */
export function samplesList(
  ctx: Pick<StepContext, 'form'>,
  copy: SamplesCopy,
  hidden: Record<string, string>,
  samples: readonly { id: string; label: string }[],
): SafeHtml {
  const fields = Object.entries(hidden).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`);
  return html`<section class="samples" aria-labelledby="samples-title">
    <h2 id="samples-title">${copy.samplesTitle}</h2>
    <p class="hint">${copy.samplesHint}</p>
    <ul>
      ${samples.map(
        (sample) =>
          html`<li>
            ${ctx.form(
              html`${fields}<input type="hidden" name="sample" value="${sample.id}" />
                <button type="submit" name="action" value="sample" class="secondary">${copy.useSample}: ${sample.label}</button>`,
              { novalidate: true },
            )}
          </li>`,
      )}
    </ul>
  </section>`;
}
