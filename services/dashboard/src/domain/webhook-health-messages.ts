import type { Locale } from './i18n';
import type { RetryFormProblem, RetryInput } from './webhook-retry';

/** The words of an endpoint's page's retry of failed deliveries and health sections. */
export interface RetryHealthMessages {
  retryTitle: string;
  retryHint: (perSecond: number) => string;
  retryFrom: string;
  retryTo: string;
  retryTimes: string;
  retrySubmit: string;
  retryFields: Record<keyof RetryInput, string>;
  retryProblems: Record<RetryFormProblem, string>;
  retryStarted: string;
  retryConflict: string;
  retryProgress: (done: number, total: number) => string;
  retryFailed: (failed: number) => string;
  retryCanceled: (canceled: number) => string;
  retryRange: (from: string, to: string) => string;
  retryStates: { running: string; finished: string };
  retryNone: string;
  retryWaitsForCircuit: string;
  healthTitle: string;
  healthHint: string;
  last24h: string;
  last7d: string;
  attempts: string;
  successRate: string;
  p95: string;
  noAttempts: string;
  noValue: string;
  hour: string;
  day: string;
  byHour: string;
  byDay: string;
  chartTitle: (window: string) => string;
  chartDesc: (window: string, attempts: number, rate: string) => string;
  percent: (rate: number) => string;
  ms: (ms: number) => string;
}

const es: RetryHealthMessages = {
  retryTitle: 'Reintentar las entregas fallidas',
  retryHint: (perSecond) =>
    `Manda una vez más cada evento cuyo último intento en ese lapso falló y que no se entregó después, con firma nueva, de a ${perSecond} por segundo para no saturar tu servidor. Si el circuito está abierto, espera a que se cierre. Los eventos que se entregaron no se vuelven a mandar.`,
  retryFrom: 'Desde',
  retryTo: 'Hasta',
  retryTimes: 'Hora de Argentina; “hasta” incluye ese minuto. Hasta 31 días.',
  retrySubmit: 'Reintentar las entregas fallidas',
  retryFields: { from: 'Desde', to: 'Hasta' },
  retryProblems: {
    required: 'Completá la fecha y la hora.',
    invalid_date: 'No es una fecha y hora válidas.',
    not_after: '“Hasta” tiene que ser posterior a “desde”.',
    too_long: 'El lapso no puede pasar de 31 días.',
  },
  retryStarted: 'Empezamos a reintentar las entregas fallidas: el avance se ve abajo (recargá la página para actualizarlo).',
  retryConflict: 'No se puede reintentar: el endpoint está desactivado o ya hay un reintento en curso.',
  retryProgress: (done, total) => `Reintento: ${done} de ${total} enviadas`,
  retryFailed: (failed) => `${failed} volvieron a fallar.`,
  retryCanceled: (canceled) => `${canceled} no se mandaron (el endpoint se desactivó o se eliminó).`,
  retryRange: (from, to) => `Intentos fallidos del ${from} al ${to}.`,
  retryStates: { running: 'en curso', finished: 'terminado' },
  retryNone: 'Todavía no reintentaste entregas de este endpoint.',
  retryWaitsForCircuit: 'El circuito está abierto: el reintento sigue cuando se cierre.',
  healthTitle: 'Salud',
  healthHint:
    'Intentos, porcentaje entregado y latencia p95 (de los intentos que tuvieron respuesta). Las horas son de Argentina; no cuentan los intentos salteados con el circuito abierto.',
  last24h: 'Últimas 24 horas',
  last7d: 'Últimos 7 días',
  attempts: 'Intentos',
  successRate: 'Entregados',
  p95: 'Latencia p95',
  noAttempts: 'Sin intentos.',
  noValue: '—',
  hour: 'Hora',
  day: 'Día',
  byHour: 'Las cifras de cada hora',
  byDay: 'Las cifras de cada día',
  chartTitle: (window) => `Porcentaje entregado, ${window.toLowerCase()}`,
  chartDesc: (window, attempts, rate) =>
    `${window}: ${attempts} intento(s), ${rate} entregado. Cada barra es el porcentaje entregado de una hora o un día; los mismos números están en la tabla.`,
  percent: (rate) => `${(rate * 100).toLocaleString('es-AR', { maximumFractionDigits: 1 })} %`,
  ms: (ms) => `${ms.toLocaleString('es-AR')} ms`,
};

const en: RetryHealthMessages = {
  retryTitle: 'Retry failed deliveries',
  retryHint: (perSecond) =>
    `Sends once more each event whose latest attempt in that range failed and that was not delivered since, with a new signature, ${perSecond} a second so your server is not flooded. While the circuit is open it waits for it to close. Events that were delivered are not sent again.`,
  retryFrom: 'From',
  retryTo: 'To',
  retryTimes: 'Argentina time; “to” includes that minute. At most 31 days.',
  retrySubmit: 'Retry failed deliveries',
  retryFields: { from: 'From', to: 'To' },
  retryProblems: {
    required: 'Fill in the date and time.',
    invalid_date: 'That is not a valid date and time.',
    not_after: '“To” must be after “from”.',
    too_long: 'The range cannot be longer than 31 days.',
  },
  retryStarted: 'We started retrying the failed deliveries: the progress is below (reload the page to update it).',
  retryConflict: 'It cannot be retried: the endpoint is disabled or a retry is already running.',
  retryProgress: (done, total) => `Retry: ${done} of ${total} sent`,
  retryFailed: (failed) => `${failed} failed again.`,
  retryCanceled: (canceled) => `${canceled} were not sent (the endpoint was disabled or deleted).`,
  retryRange: (from, to) => `Failed attempts from ${from} to ${to}.`,
  retryStates: { running: 'running', finished: 'finished' },
  retryNone: 'You have not retried deliveries of this endpoint yet.',
  retryWaitsForCircuit: 'The circuit is open: the retry goes on when it closes.',
  healthTitle: 'Health',
  healthHint:
    'Attempts, share delivered and p95 latency (of the attempts that got an answer). Times are Argentina’s; attempts skipped while the circuit was open do not count.',
  last24h: 'Last 24 hours',
  last7d: 'Last 7 days',
  attempts: 'Attempts',
  successRate: 'Delivered',
  p95: 'p95 latency',
  noAttempts: 'No attempts.',
  noValue: '—',
  hour: 'Hour',
  day: 'Day',
  byHour: 'The figures of each hour',
  byDay: 'The figures of each day',
  chartTitle: (window) => `Share delivered, ${window.toLowerCase()}`,
  chartDesc: (window, attempts, rate) =>
    `${window}: ${attempts} attempt(s), ${rate} delivered. Each bar is the share delivered in one hour or one day; the same figures are in the table.`,
  percent: (rate) => `${(rate * 100).toLocaleString('en-US', { maximumFractionDigits: 1 })}%`,
  ms: (ms) => `${ms.toLocaleString('en-US')} ms`,
};

export const RETRY_HEALTH_MESSAGES: Record<Locale, RetryHealthMessages> = { es, en };
