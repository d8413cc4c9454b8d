import { messages, type Locale } from './i18n';

/**
 * The text a timeline's `message_key` names (`document.problems.blurry`, `rejection.reasons.document_expired`,
 * `face.reasons.retry`, `choiceOptionFailed`), in `locale`, exactly as the person's pages show it. The
 * catalogue stays here: the dashboard asks the flow-runner for the text rather than keeping a copy that
 * would drift. A key that names no text (a group, a text with parameters, a reason shown with no message,
 * a key since renamed) has none: the reader shows the key instead.
 */
export function messageText(locale: Locale, key: string): string | undefined {
  let node: unknown = messages(locale);
  for (const part of key.split('.')) {
    if (node === null || typeof node !== 'object' || !Object.prototype.hasOwnProperty.call(node, part)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return typeof node === 'string' ? node : undefined;
}
