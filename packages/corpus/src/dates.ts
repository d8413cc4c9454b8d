/** Calendar arithmetic on `YYYY-MM-DD` strings, in UTC so that no time zone moves a date. */

const DAY_MS = 86_400_000;

export function isoToDays(iso: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  if (match === null) throw new Error(`not an ISO date: ${iso}`);
  return Math.floor(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) / DAY_MS);
}

export function daysToIso(days: number): string {
  return new Date(days * DAY_MS).toISOString().slice(0, 10);
}

export function addDays(iso: string, days: number): string {
  return daysToIso(isoToDays(iso) + days);
}

/** The same day `years` later; 29 February becomes 28 February in a common year (as issuers do). */
export function addYears(iso: string, years: number): string {
  const year = Number(iso.slice(0, 4)) + years;
  const monthDay = iso.slice(5);
  const candidate = `${String(year).padStart(4, '0')}-${monthDay}`;
  if (monthDay === '02-29' && daysToIso(isoToDays(`${year}-03-01`) - 1).slice(5) !== '02-29') return `${year}-02-28`;
  return candidate;
}

/** `DD/MM/YYYY`, as the DNI barcode writes dates. */
export function toDayMonthYear(iso: string): string {
  return `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`;
}

/** `YYMMDD`, as an MRZ writes dates. */
export function toMrzDate(iso: string): string {
  return `${iso.slice(2, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}`;
}

const MONTHS_ES = ['ENE', 'FEB', 'MAR', 'ABR', 'MAY', 'JUN', 'JUL', 'AGO', 'SEP', 'OCT', 'NOV', 'DIC'] as const;
const MONTHS_EN = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] as const;

/** `01 NOV/ NOV 1969`: the bilingual printed date of the 2012 DNI and the passport. */
export function toPrintedBilingual(iso: string): string {
  const month = Number(iso.slice(5, 7)) - 1;
  return `${iso.slice(8, 10)} ${MONTHS_ES[month] ?? ''}/ ${MONTHS_EN[month] ?? ''} ${iso.slice(0, 4)}`;
}

/** `29 SEP 2009`: the printed date of the 2009 DNI. */
export function toPrintedSpanish(iso: string): string {
  const month = Number(iso.slice(5, 7)) - 1;
  return `${iso.slice(8, 10)} ${MONTHS_ES[month] ?? ''} ${iso.slice(0, 4)}`;
}
