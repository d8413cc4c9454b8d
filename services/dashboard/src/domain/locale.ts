/** The dashboard's languages: Spanish (Argentina) first, English when the browser asks for it first. */
export type Locale = 'es' | 'en';

/** Every moment the dashboard shows is in Argentina's time. */
export const ARGENTINA_TIME_ZONE = 'America/Argentina/Buenos_Aires';

/** The `Intl` tag of each language (one for dates and numbers: en-GB writes numbers as en-US does). */
const TAGS: Record<Locale, string> = { es: 'es-AR', en: 'en-GB' };

/**
 * Every `Intl` formatter of the dashboard, made once per language and options and kept: building one costs
 * ~0.2 ms, far more than using it, and a page formats hundreds of moments and numbers (made per call, a 50-row
 * table took 12.7 ms a page, 0.7 ms with these, and the usage page 27 ms). Views, messages and mails use these.
 */
const DATE_FORMATS = new Map<string, Intl.DateTimeFormat>();
const NUMBER_FORMATS = new Map<string, Intl.NumberFormat>();

/** The language's date and time formatter with `options` (the same options give the same formatter). */
export function dateTimeFormat(locale: Locale, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale}:${JSON.stringify(options)}`;
  let format = DATE_FORMATS.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(TAGS[locale], options);
    DATE_FORMATS.set(key, format);
  }
  return format;
}

const MOMENT = {
  minute: { dateStyle: 'medium', timeStyle: 'short', timeZone: ARGENTINA_TIME_ZONE },
  second: { dateStyle: 'medium', timeStyle: 'medium', timeZone: ARGENTINA_TIME_ZONE },
} as const satisfies Record<string, Intl.DateTimeFormatOptions>;

/** A moment as the dashboard shows it: Argentina's time, in the page's language; to the second where order matters (the audit log). */
export function timeOf(locale: Locale, at: Date | string, precision: 'minute' | 'second' = 'minute'): string {
  return dateTimeFormat(locale, MOMENT[precision]).format(new Date(at));
}

/** A number in the language's digits and grouping ("1.234,5" in Spanish, "1,234.5" in English). */
export function numberOf(locale: Locale, value: number, options: Intl.NumberFormatOptions = {}): string {
  const key = `${locale}:${JSON.stringify(options)}`;
  let format = NUMBER_FORMATS.get(key);
  if (!format) {
    format = new Intl.NumberFormat(TAGS[locale], options);
    NUMBER_FORMATS.set(key, format);
  }
  return format.format(value);
}

/** A calendar day as a form sends it (`YYYY-MM-DD`) that exists (no 31 April), or null. */
export function calendarDay(value: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value) ? value : null;
}
