import type { Mode, SessionStatus } from '@idv/contracts';
import { numberOf, type Locale } from './locale';

/** The usage page's words, apart from the rest of the dashboard's (only its page uses them). */
export interface UsageMessages {
  title: string;
  lead: string;
  month: string;
  monthHint: string;
  show: string;
  otherMonths: string;
  previous: (month: string) => string;
  next: (month: string) => string;
  current: string;
  monthTitle: (month: string) => string;
  status: string;
  total: string;
  modes: Record<Mode, string>;
  statuses: Record<SessionStatus, string>;
  tokensDebited: (tokens: number) => string;
  download: string;
  downloadHint: string;
  chartTitle: (from: string, to: string) => string;
  chartLead: string;
  legend: string;
  chartLabel: (mode: string, from: string, to: string) => string;
  chartDescription: string;
  /** The chart's scroll region on a narrow screen. */
  chartRegion: (mode: string) => string;
  monthColumn: string;
  /** A bar segment's tooltip; the count comes formatted. */
  segment: (status: string, month: string, count: string) => string;
  noSessions: string;
  invalid: { malformed: (value: string) => string; out_of_range: (value: string) => string };
}

const es: UsageMessages = {
  title: 'Uso',
  lead: 'Las sesiones de cada mes por modo y estado, y las fichas que usaron: los mismos números que da la API (GET /v1/usage). Los meses se cuentan en hora UTC, como en la API: una sesión creada el último día del mes después de las 21 (hora de Argentina) cuenta en el mes siguiente.',
  month: 'Mes',
  monthHint: 'Año y mes, como 2026-11.',
  show: 'Ver el mes',
  otherMonths: 'Otros meses',
  previous: (month) => `← ${month}`,
  next: (month) => `${month} →`,
  current: 'Ver el mes actual',
  monthTitle: (month) => `Sesiones de ${month}`,
  status: 'Estado',
  total: 'Total',
  modes: { live: 'Real', test: 'Prueba' },
  statuses: {
    approved: 'Aprobadas',
    rejected: 'Rechazadas',
    expired: 'Vencidas',
    abandoned: 'Abandonadas',
    canceled: 'Canceladas',
    in_progress: 'En curso',
    pending: 'Sin abrir',
  },
  tokensDebited: (tokens) =>
    tokens === 1
      ? 'Usaron 1 ficha (solo las sesiones en modo real usan fichas).'
      : `Usaron ${numberOf('es', tokens)} fichas (solo las sesiones en modo real usan fichas).`,
  download: 'Descargar CSV',
  downloadHint:
    'Una fila por sesión del mes, en los dos modos: el mismo archivo que exporta la API (GET /v1/usage/sessions.csv), sin datos personales.',
  chartTitle: (from, to) => `De ${from} a ${to}`,
  chartLead:
    'Cada barra es un mes, con sus sesiones apiladas por estado. Debajo de cada gráfico, los mismos números en una tabla.',
  legend: 'Colores de los estados',
  chartLabel: (mode, from, to) => `Sesiones en modo ${mode.toLowerCase()} por mes y estado, de ${from} a ${to}`,
  chartDescription: 'Barras apiladas por estado, una por mes; la tabla que sigue tiene los mismos números.',
  chartRegion: (mode) => `Gráfico de ${mode.toLowerCase()}`,
  monthColumn: 'Mes',
  segment: (status, month, count) => `${status}: ${count} (${month})`,
  noSessions: 'No hubo sesiones en estos meses.',
  invalid: {
    malformed: (value) =>
      value
        ? `“${value}” no es un mes: escribilo como AAAA-MM (por ejemplo 2026-11).`
        : 'Escribí el mes como AAAA-MM (por ejemplo 2026-11).',
    out_of_range: (value) => `No hay uso de ${value}: elegí un mes desde 2000-01 hasta el actual.`,
  },
};

const en: UsageMessages = {
  title: 'Usage',
  lead: 'Each month’s sessions by mode and status, and the tokens they used: the same numbers as the API’s (GET /v1/usage). Months are counted in UTC, as in the API: a session created on a month’s last day after 9 p.m. (Argentina’s time) counts in the next month.',
  month: 'Month',
  monthHint: 'Year and month, such as 2026-11.',
  show: 'Show the month',
  otherMonths: 'Other months',
  previous: (month) => `← ${month}`,
  next: (month) => `${month} →`,
  current: 'Show the current month',
  monthTitle: (month) => `Sessions in ${month}`,
  status: 'Status',
  total: 'Total',
  modes: { live: 'Live', test: 'Test' },
  statuses: {
    approved: 'Approved',
    rejected: 'Rejected',
    expired: 'Expired',
    abandoned: 'Abandoned',
    canceled: 'Canceled',
    in_progress: 'In progress',
    pending: 'Not opened',
  },
  tokensDebited: (tokens) =>
    tokens === 1
      ? 'They used 1 token (only live sessions use tokens).'
      : `They used ${numberOf('en', tokens)} tokens (only live sessions use tokens).`,
  download: 'Download CSV',
  downloadHint:
    'One row per session of the month, in both modes: the same file as the API’s export (GET /v1/usage/sessions.csv), with no personal data.',
  chartTitle: (from, to) => `${from} to ${to}`,
  chartLead: 'Each bar is a month, its sessions stacked by status. Under each chart, the same numbers in a table.',
  legend: 'Colours of the statuses',
  chartLabel: (mode, from, to) => `${mode} sessions by month and status, ${from} to ${to}`,
  chartDescription: 'Bars stacked by status, one a month; the table that follows has the same numbers.',
  chartRegion: (mode) => `${mode} chart`,
  monthColumn: 'Month',
  segment: (status, month, count) => `${status}: ${count} (${month})`,
  noSessions: 'There were no sessions in these months.',
  invalid: {
    malformed: (value) =>
      value
        ? `“${value}” is not a month: write it as YYYY-MM (for example 2026-11).`
        : 'Write the month as YYYY-MM (for example 2026-11).',
    out_of_range: (value) => `There is no usage for ${value}: choose a month from 2000-01 to the current one.`,
  },
};

export const USAGE_MESSAGES: Record<Locale, UsageMessages> = { es, en };
