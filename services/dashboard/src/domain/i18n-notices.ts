import { numberOf, timeOf, type Locale } from './locale';
import type { Notice } from './owner-notices';

/** The owners' notices in each language: the e-mails, the tokens page's threshold form, the audit log's words. */
export interface NoticesMessages {
  mailSubject: (notice: Notice) => string;
  mailText: (notice: Notice, name: string, link: string) => string;
  /** Who the audit log says acted for a notice. */
  serviceActor: string;
  auditActions: Record<string, string>;
  threshold: {
    title: string;
    lead: string;
    current: (threshold: number | null, defaultThreshold: number) => string;
    label: string;
    hint: (defaultThreshold: number) => string;
    save: string;
    saved: string;
    invalid: string;
    ownersOnly: string;
  };
}

/** "N fichas" / "N tokens": the notices' words, and the tokens page's. */
export const TOKEN_COUNT: Record<Locale, (count: number) => string> = {
  es: (count) => (count === 1 ? '1 ficha' : `${numberOf('es', count)} fichas`),
  en: (count) => (count === 1 ? '1 token' : `${numberOf('en', count)} tokens`),
};
const tokensEs = TOKEN_COUNT.es;
const tokensEn = TOKEN_COUNT.en;

export const NOTICES_MESSAGES: { es: NoticesMessages; en: NoticesMessages } = {
  es: {
    mailSubject: (notice) => {
      switch (notice.kind) {
        case 'balance_low':
          return `Quedan pocas fichas: ${tokensEs(notice.balance)}`;
        case 'balance_depleted':
          return 'Se terminaron las fichas: las sesiones en modo real se rechazan';
        case 'circuit_opened':
          return 'Pausamos las entregas a un webhook que falla';
        case 'circuit_closed':
          return 'Un webhook volvió a recibir las entregas';
      }
    },
    mailText: (notice, name, link) => {
      switch (notice.kind) {
        case 'balance_low':
          return `Hola ${name}:\n\nA la cuenta le quedan ${tokensEs(notice.balance)}, menos que el aviso de ${tokensEs(notice.threshold)}${
            notice.thresholdSource === 'default' ? ' (unos 3 días de uso al ritmo de los últimos 7 días)' : ''
          }. Cuando se terminen, las sesiones en modo real se rechazan (402).\n\nPara que no se corten, pedí más fichas a nuestro equipo respondiendo este correo. El saldo, el ritmo de uso y el aviso están en:\n\n${link}\n`;
        case 'balance_depleted':
          return `Hola ${name}:\n\nA la cuenta no le quedan fichas: desde ahora la API rechaza las sesiones nuevas en modo real con 402 (insufficient_balance). Las de prueba siguen funcionando.\n\nPara reanudar, pedí más fichas a nuestro equipo respondiendo este correo. El saldo y los movimientos están en:\n\n${link}\n`;
        case 'circuit_opened':
          return `Hola ${name}:\n\nEl webhook ${notice.url} falló varias veces seguidas, así que el ${timeOf('es', notice.at)} pausamos sus entregas automáticas para no insistir sobre un servidor caído. Volvemos a probar el ${timeOf('es', notice.nextAttemptAt ?? notice.at)}; los eventos no se pierden: esperan en la cola.\n\nRevisá que tu servidor responda 2xx. El registro de entregas (con cada respuesta) y el estado del webhook están en:\n\n${link}\n\nTe avisamos de nuevo cuando vuelva a recibir.\n`;
        case 'circuit_closed':
          return `Hola ${name}:\n\nEl webhook ${notice.url} volvió a responder bien (${timeOf('es', notice.at)}): reanudamos las entregas y enviamos lo que estaba en la cola.\n\nSi alguna entrega se dio por perdida durante la caída, podés reenviarla desde:\n\n${link}\n`;
      }
    },
    serviceActor: 'El servicio (aviso automático)',
    auditActions: {
      'notification.balance_low': 'Avisó a los dueños que quedan pocas fichas',
      'notification.balance_depleted': 'Avisó a los dueños que se terminaron las fichas',
      'notification.circuit_opened': 'Avisó a los dueños que un webhook se pausó por fallas',
      'notification.circuit_closed': 'Avisó a los dueños que un webhook volvió a recibir',
      'balance.threshold_set': 'Cambió el aviso de saldo bajo',
    },
    threshold: {
      title: 'Aviso de saldo bajo',
      lead: 'Les mandamos un correo a los dueños cuando el saldo baja de este número, una vez cada vez que baja, y otro cuando llega a cero.',
      current: (threshold, defaultThreshold) =>
        threshold !== null
          ? `Avisamos cuando queden menos de ${tokensEs(threshold)}.`
          : defaultThreshold > 0
            ? `Aviso por defecto: 3 días de uso al ritmo de los últimos 7 días, hoy menos de ${tokensEs(defaultThreshold)}.`
            : 'Aviso por defecto: 3 días de uso al ritmo de los últimos 7 días. Sin uso en esos días, solo avisamos al llegar a cero.',
      label: 'Avisar cuando queden menos de (fichas)',
      hint: (defaultThreshold) =>
        `Un número entero. Vacío: el aviso por defecto (3 días de uso; hoy ${tokensEs(defaultThreshold)}).`,
      save: 'Guardar el aviso',
      saved: 'Guardamos el aviso de saldo bajo.',
      invalid: 'Escribí un número entero de fichas, de 1 a 1.000.000.000, o dejalo vacío para el aviso por defecto.',
      ownersOnly: 'Solo los dueños de la cuenta cambian el aviso.',
    },
  },
  en: {
    mailSubject: (notice) => {
      switch (notice.kind) {
        case 'balance_low':
          return `Tokens running low: ${tokensEn(notice.balance)} left`;
        case 'balance_depleted':
          return 'Out of tokens: live sessions are refused';
        case 'circuit_opened':
          return 'We paused deliveries to a failing webhook';
        case 'circuit_closed':
          return 'A webhook receives deliveries again';
      }
    },
    mailText: (notice, name, link) => {
      switch (notice.kind) {
        case 'balance_low':
          return `Hello ${name},\n\nThe account has ${tokensEn(notice.balance)} left, under its alert of ${tokensEn(notice.threshold)}${
            notice.thresholdSource === 'default' ? " (about 3 days of use at the last 7 days' pace)" : ''
          }. Once they are spent, live sessions are refused (402).\n\nTo keep them going, ask our team for more tokens by replying to this e-mail. The balance, the pace and the alert are at:\n\n${link}\n`;
        case 'balance_depleted':
          return `Hello ${name},\n\nThe account has no tokens left: from now on the API refuses new live sessions with 402 (insufficient_balance). Test sessions keep working.\n\nTo resume, ask our team for more tokens by replying to this e-mail. The balance and its ledger are at:\n\n${link}\n`;
        case 'circuit_opened':
          return `Hello ${name},\n\nThe webhook ${notice.url} failed several times in a row, so on ${timeOf('en', notice.at)} (Argentina) we paused its automatic deliveries rather than insist on a server that is down. We try again on ${timeOf('en', notice.nextAttemptAt ?? notice.at)}; no event is lost: they wait in the queue.\n\nCheck that your server answers 2xx. The delivery log (with each answer) and the webhook's state are at:\n\n${link}\n\nWe will tell you when it receives again.\n`;
        case 'circuit_closed':
          return `Hello ${name},\n\nThe webhook ${notice.url} answers well again (${timeOf('en', notice.at)}, Argentina): we resumed its deliveries and sent what was queued.\n\nIf a delivery was given up during the outage, you can send it again from:\n\n${link}\n`;
      }
    },
    serviceActor: 'The service (automatic notice)',
    auditActions: {
      'notification.balance_low': 'Told the owners the tokens are running low',
      'notification.balance_depleted': 'Told the owners the tokens are spent',
      'notification.circuit_opened': 'Told the owners a webhook was paused after failures',
      'notification.circuit_closed': 'Told the owners a webhook receives again',
      'balance.threshold_set': 'Changed the low-balance alert',
    },
    threshold: {
      title: 'Low-balance alert',
      lead: 'We e-mail the owners when the balance falls under this number, once each time it does, and again when it reaches zero.',
      current: (threshold, defaultThreshold) =>
        threshold !== null
          ? `We alert when fewer than ${tokensEn(threshold)} are left.`
          : defaultThreshold > 0
            ? `Default alert: 3 days of use at the last 7 days' pace, today fewer than ${tokensEn(defaultThreshold)}.`
            : "Default alert: 3 days of use at the last 7 days' pace. With no use in those days, we alert only at zero.",
      label: 'Alert when fewer than this are left (tokens)',
      hint: (defaultThreshold) =>
        `A whole number. Empty: the default alert (3 days of use; today ${tokensEn(defaultThreshold)}).`,
      save: 'Save the alert',
      saved: 'The low-balance alert is saved.',
      invalid: 'Enter a whole number of tokens, from 1 to 1,000,000,000, or leave it empty for the default alert.',
      ownersOnly: "Only the account's owners change the alert.",
    },
  },
};
