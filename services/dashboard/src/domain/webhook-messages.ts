import type { CircuitState, DELIVERY_STATUSES, WebhookEventType } from '@idv/contracts';
import type { Locale } from './i18n';
import type { WebhookFilterField, WebhookFormField, WebhookFormProblem } from './webhooks';

type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The webhooks pages' words, apart from the rest of the dashboard's (only these pages use them). */
export interface WebhookMessages {
  title: string;
  lead: string;
  none: string;
  columns: { url: string; events: string; status: string; circuit: string; created: string };
  statuses: Record<'active' | 'disabled', string>;
  createTitle: string;
  url: string;
  urlHint: string;
  description: string;
  events: string;
  eventsHint: string;
  eventNames: Record<WebhookEventType, string>;
  noVerdictEvent: string;
  create: string;
  duplicate: string;
  problems: Record<WebhookFormProblem, string>;
  fields: Record<WebhookFormField, string>;
  refused: (detail: string) => string;
  createdTitle: string;
  secretWarning: string;
  secretLabel: string;
  copy: string;
  done: string;
  endpointTitle: (url: string) => string;
  back: string;
  editTitle: string;
  save: string;
  saved: string;
  stateTitle: string;
  disable: string;
  enable: string;
  disabled: string;
  enabled: string;
  disabledNote: string;
  circuitTitle: string;
  circuitStates: Record<CircuitState, string>;
  circuitOpenUntil: (when: string) => string;
  circuitHalfOpen: (since: string) => string;
  circuitClosed: (failures: number) => string;
  waiting: (count: number) => string;
  nextAttempt: (when: string) => string;
  nothingWaiting: string;
  secretTitle: string;
  secretHidden: string;
  rotate: string;
  rotateHint: string;
  rotatedTitle: string;
  overlapUntil: (when: string) => string;
  overlapNow: (when: string) => string;
  testTitle: string;
  testHint: string;
  sendTest: string;
  testSent: string;
  rateLimited: string;
  deleteLink: string;
  deleteTitle: (url: string) => string;
  deleteBody: string;
  deleteConfirm: string;
  cancel: string;
  deleted: (url: string) => string;
  logTitle: string;
  filters: string;
  status: string;
  anyStatus: string;
  deliveryStatuses: Record<DeliveryStatus, string>;
  eventType: string;
  anyEvent: string;
  session: string;
  sessionHint: string;
  from: string;
  to: string;
  timesHint: string;
  apply: string;
  clear: string;
  invalid: Record<WebhookFilterField, string>;
  logColumns: { at: string; event: string; attempt: string; status: string; http: string; duration: string; reason: string };
  ms: (ms: number) => string;
  noStatus: string;
  emptyLog: string;
  older: string;
  newest: string;
  attemptTitle: (event: string, attempt: number) => string;
  backToEndpoint: string;
  facts: { at: string; event: string; eventId: string; status: string; http: string; duration: string; reason: string };
  requestTitle: string;
  sentAt: (when: string) => string;
  headers: string;
  body: string;
  bodyHidden: string;
  bodyGone: string;
  bodyNotAsSent: string;
  nothingSent: string;
  notKept: string;
  responseTitle: string;
  noResponse: string;
  bodyCut: (kept: number, total: number) => string;
  bodyBytes: (total: number) => string;
  emptyBody: string;
  redeliver: string;
  redeliverHint: string;
  redelivered: string;
}

const es: WebhookMessages = {
  title: 'Webhooks',
  lead: 'Las direcciones donde avisamos a tu sistema cuando una sesión se decide. Cada aviso va firmado con el secreto del endpoint; el registro muestra cada intento con lo que mandamos y lo que respondió tu servidor.',
  none: 'Todavía no hay endpoints.',
  columns: { url: 'Dirección', events: 'Eventos', status: 'Estado', circuit: 'Circuito', created: 'Creado' },
  statuses: { active: 'activo', disabled: 'desactivado' },
  createTitle: 'Agregar un endpoint',
  url: 'Dirección (URL)',
  urlHint: 'https://… de tu servidor. No se siguen redirecciones.',
  description: 'Descripción (opcional)',
  events: 'Eventos',
  eventsHint: 'Llega un evento solo si también lo marca la configuración del proyecto.',
  eventNames: {
    'verification_session.approved': 'Sesión aprobada',
    'verification_session.rejected': 'Sesión rechazada',
    'verification_session.completed': 'Sesión completa (aprobada o rechazada)',
    'verification_session.expired': 'Sesión vencida o abandonada',
    'verification_session.canceled': 'Sesión cancelada',
    'verification_session.review_required': 'Requiere revisión (todavía no se emite)',
    'verification_session.created': 'Sesión creada (todavía no se emite)',
    test: 'Evento de prueba',
  },
  noVerdictEvent: 'Ningún evento marcado avisa el resultado de una sesión (aprobada, rechazada o completa).',
  create: 'Crear el endpoint',
  duplicate: 'Ese formulario ya se envió: el endpoint está en la lista.',
  problems: {
    required: 'Completá este dato.',
    too_long: 'Es demasiado largo.',
    invalid_url: 'Escribí una dirección completa, por ejemplo https://api.empresa.com/webhooks.',
    invalid_characters: 'Tiene caracteres que no se pueden usar (de control).',
    no_events: 'Marcá al menos un evento.',
  },
  fields: { url: 'Dirección', description: 'Descripción', events: 'Eventos' },
  refused: (detail) => `La API no acepta esa dirección: ${detail}`,
  createdTitle: 'Endpoint creado',
  secretWarning:
    'Copiá el secreto ahora y guardalo en tu servidor: con él verificás la firma de cada aviso. No lo vamos a volver a mostrar.',
  secretLabel: 'Secreto de firma',
  copy: 'Copiar',
  done: 'Listo, ya lo guardé',
  endpointTitle: (url) => `Endpoint ${url}`,
  back: 'Volver a los webhooks',
  editTitle: 'Editar',
  save: 'Guardar los cambios',
  saved: 'Guardamos los cambios.',
  stateTitle: 'Estado',
  disable: 'Desactivar',
  enable: 'Activar',
  disabled: 'Desactivaste el endpoint: no le mandamos eventos hasta que lo actives.',
  enabled: 'Activaste el endpoint.',
  disabledNote: 'Desactivado: no recibe eventos (las pruebas y los reenvíos sí se mandan).',
  circuitTitle: 'Circuito',
  circuitStates: { closed: 'cerrado', open: 'abierto', half_open: 'medio abierto' },
  circuitOpenUntil: (when) =>
    `Abierto tras 5 fallas seguidas: no mandamos avisos automáticos hasta el ${when}; después probamos de nuevo.`,
  circuitHalfOpen: (since) =>
    `El período de espera terminó el ${since}: el próximo intento es de prueba; si sale bien, se cierra.`,
  circuitClosed: (failures) =>
    failures === 0 ? 'Cerrado: los avisos salen normalmente.' : `Cerrado, con ${failures} falla(s) seguida(s) (se abre a las 5).`,
  waiting: (count) => `${count} aviso(s) esperando.`,
  nextAttempt: (when) => `Próximo intento: ${when}.`,
  nothingWaiting: 'No hay avisos esperando.',
  secretTitle: 'Secreto de firma',
  secretHidden: 'El secreto no se vuelve a mostrar. Si lo perdiste, renovalo.',
  rotate: 'Renovar el secreto',
  rotateHint: 'El secreto anterior sigue firmando durante 24 horas, así cambiás tu servidor sin perder avisos.',
  rotatedTitle: 'Secreto renovado',
  overlapUntil: (when) => `Hasta el ${when} cada aviso lleva dos firmas: con el secreto nuevo y con el anterior.`,
  overlapNow: (when) => `El secreto anterior firma también hasta el ${when}.`,
  testTitle: 'Probar',
  testHint:
    'Manda un evento de tipo test una vez, sin reintentos, aunque el circuito esté abierto. Hasta 10 por minuto junto con los reenvíos.',
  sendTest: 'Mandar un evento de prueba',
  testSent: 'Mandamos un evento de prueba: aparece en el registro en unos segundos.',
  rateLimited: 'Llegaste al límite de 10 pruebas y reenvíos por minuto. Esperá un minuto y probá de nuevo.',
  deleteLink: 'Eliminar el endpoint',
  deleteTitle: (url) => `¿Eliminar el endpoint ${url}?`,
  deleteBody:
    'Dejamos de mandarle avisos y descartamos los que esperaban. Su registro de intentos se conserva. No se puede deshacer.',
  deleteConfirm: 'Sí, eliminarlo',
  cancel: 'Cancelar',
  deleted: (url) => `Eliminaste el endpoint ${url}.`,
  logTitle: 'Registro de intentos',
  filters: 'Filtrar el registro',
  status: 'Resultado',
  anyStatus: 'Cualquiera',
  deliveryStatuses: { succeeded: 'entregado', failed: 'falló', dead: 'abandonado' },
  eventType: 'Evento',
  anyEvent: 'Cualquiera',
  session: 'Sesión',
  sessionHint: 'vs_…',
  from: 'Desde',
  to: 'Hasta',
  timesHint: 'Hora de Argentina.',
  apply: 'Filtrar',
  clear: 'Ver todo',
  invalid: {
    status: 'No conocemos ese resultado: mostramos todos.',
    event_type: 'No conocemos ese evento: mostramos todos.',
    session: 'Eso no es el id de una sesión (vs_…): no lo usamos.',
    from: 'La fecha “desde” no es válida: no la usamos.',
    to: 'La fecha “hasta” no es válida: no la usamos.',
    cursor: 'El enlace de la página no es válido: mostramos los más recientes.',
  },
  logColumns: {
    at: 'Cuándo',
    event: 'Evento',
    attempt: 'Intento',
    status: 'Resultado',
    http: 'HTTP',
    duration: 'Duración',
    reason: 'Motivo de la falla',
  },
  ms: (ms) => `${ms} ms`,
  noStatus: '—',
  emptyLog: 'No hay intentos con estos filtros.',
  older: 'Ver más antiguos',
  newest: 'Volver a los más recientes',
  attemptTitle: (event, attempt) => `Intento ${attempt} de ${event}`,
  backToEndpoint: 'Volver al endpoint',
  facts: {
    at: 'Registrado',
    event: 'Evento',
    eventId: 'Id del evento',
    status: 'Resultado',
    http: 'Estado HTTP',
    duration: 'Duración',
    reason: 'Motivo de la falla',
  },
  requestTitle: 'Lo que mandamos',
  sentAt: (when) => `Enviado el ${when}.`,
  headers: 'Encabezados',
  body: 'Cuerpo',
  bodyHidden: 'Oculto para tu rol: puede llevar datos personales.',
  bodyGone: 'El evento ya no se guarda: no podemos mostrar el cuerpo.',
  bodyNotAsSent:
    'Los datos del documento se borraron del evento por el plazo de conservación después de este intento: el cuerpo que ves no los tiene (la firma correspondía al original).',
  nothingSent: 'No se mandó nada: el circuito estaba abierto.',
  notKept: 'Este intento es anterior a que guardáramos lo enviado y lo recibido.',
  responseTitle: 'Lo que respondió tu servidor',
  noResponse: 'No hubo respuesta (la conexión falló o se agotó el tiempo antes de los encabezados).',
  bodyCut: (kept, total) => `Primeros ${kept} de ${total} bytes.`,
  bodyBytes: (total) => `${total} bytes.`,
  emptyBody: '(vacío)',
  redeliver: 'Reenviar este evento',
  redeliverHint: 'Lo manda una vez más a este endpoint, con firma nueva, aunque el circuito esté abierto.',
  redelivered: 'Reenviamos el evento: el intento aparece en el registro en unos segundos.',
};

const en: WebhookMessages = {
  title: 'Webhooks',
  lead: 'The addresses where we tell your system that a session was decided. Each event is signed with the endpoint’s secret; the log shows every attempt with what we sent and what your server answered.',
  none: 'No endpoints yet.',
  columns: { url: 'Address', events: 'Events', status: 'Status', circuit: 'Circuit', created: 'Created' },
  statuses: { active: 'active', disabled: 'disabled' },
  createTitle: 'Add an endpoint',
  url: 'Address (URL)',
  urlHint: 'https://… on your server. Redirects are not followed.',
  description: 'Description (optional)',
  events: 'Events',
  eventsHint: 'An event arrives only if the project’s configuration ticks it too.',
  eventNames: {
    'verification_session.approved': 'Session approved',
    'verification_session.rejected': 'Session rejected',
    'verification_session.completed': 'Session completed (approved or rejected)',
    'verification_session.expired': 'Session expired or abandoned',
    'verification_session.canceled': 'Session canceled',
    'verification_session.review_required': 'Review required (not emitted yet)',
    'verification_session.created': 'Session created (not emitted yet)',
    test: 'Test event',
  },
  noVerdictEvent: 'No ticked event tells a session’s outcome (approved, rejected or completed).',
  create: 'Create the endpoint',
  duplicate: 'That form was sent already: the endpoint is in the list.',
  problems: {
    required: 'Fill this in.',
    too_long: 'It is too long.',
    invalid_url: 'Write a complete address, for example https://api.example.com/webhooks.',
    invalid_characters: 'It has characters that cannot be used (control characters).',
    no_events: 'Tick at least one event.',
  },
  fields: { url: 'Address', description: 'Description', events: 'Events' },
  refused: (detail) => `The API does not accept that address: ${detail}`,
  createdTitle: 'Endpoint created',
  secretWarning:
    'Copy the secret now and keep it on your server: it verifies the signature of each event. We will not show it again.',
  secretLabel: 'Signing secret',
  copy: 'Copy',
  done: 'Done, I kept it',
  endpointTitle: (url) => `Endpoint ${url}`,
  back: 'Back to webhooks',
  editTitle: 'Edit',
  save: 'Save the changes',
  saved: 'Changes saved.',
  stateTitle: 'Status',
  disable: 'Disable',
  enable: 'Enable',
  disabled: 'You disabled the endpoint: it gets no events until you enable it.',
  enabled: 'You enabled the endpoint.',
  disabledNote: 'Disabled: it gets no events (tests and redeliveries are still sent).',
  circuitTitle: 'Circuit',
  circuitStates: { closed: 'closed', open: 'open', half_open: 'half-open' },
  circuitOpenUntil: (when) => `Open after 5 failures in a row: no automatic events until ${when}; then we try again.`,
  circuitHalfOpen: (since) => `The wait ended on ${since}: the next attempt is a trial; if it succeeds, the circuit closes.`,
  circuitClosed: (failures) =>
    failures === 0 ? 'Closed: events go out normally.' : `Closed, with ${failures} failure(s) in a row (it opens at 5).`,
  waiting: (count) => `${count} event(s) waiting.`,
  nextAttempt: (when) => `Next attempt: ${when}.`,
  nothingWaiting: 'Nothing is waiting.',
  secretTitle: 'Signing secret',
  secretHidden: 'The secret is never shown again. If you lost it, rotate it.',
  rotate: 'Rotate the secret',
  rotateHint: 'The previous secret keeps signing for 24 hours, so you can switch your server without losing events.',
  rotatedTitle: 'Secret rotated',
  overlapUntil: (when) => `Until ${when} each event carries two signatures: with the new secret and with the previous one.`,
  overlapNow: (when) => `The previous secret also signs until ${when}.`,
  testTitle: 'Test',
  testHint:
    'Sends one event of type test, once, without retries, even while the circuit is open. Up to 10 a minute with redeliveries.',
  sendTest: 'Send a test event',
  testSent: 'We sent a test event: it shows in the log in a few seconds.',
  rateLimited: 'You reached the limit of 10 tests and redeliveries a minute. Wait a minute and try again.',
  deleteLink: 'Delete the endpoint',
  deleteTitle: (url) => `Delete the endpoint ${url}?`,
  deleteBody: 'We stop sending it events and drop those waiting. Its log of attempts is kept. This cannot be undone.',
  deleteConfirm: 'Yes, delete it',
  cancel: 'Cancel',
  deleted: (url) => `You deleted the endpoint ${url}.`,
  logTitle: 'Log of attempts',
  filters: 'Filter the log',
  status: 'Result',
  anyStatus: 'Any',
  deliveryStatuses: { succeeded: 'delivered', failed: 'failed', dead: 'abandoned' },
  eventType: 'Event',
  anyEvent: 'Any',
  session: 'Session',
  sessionHint: 'vs_…',
  from: 'From',
  to: 'To',
  timesHint: 'Argentina time.',
  apply: 'Filter',
  clear: 'Show all',
  invalid: {
    status: 'We do not know that result: showing all.',
    event_type: 'We do not know that event: showing all.',
    session: 'That is not a session id (vs_…): not used.',
    from: 'The “from” date is not valid: not used.',
    to: 'The “to” date is not valid: not used.',
    cursor: 'The page link is not valid: showing the newest.',
  },
  logColumns: {
    at: 'When',
    event: 'Event',
    attempt: 'Attempt',
    status: 'Result',
    http: 'HTTP',
    duration: 'Duration',
    reason: 'Failure reason',
  },
  ms: (ms) => `${ms} ms`,
  noStatus: '—',
  emptyLog: 'No attempts with these filters.',
  older: 'Show older',
  newest: 'Back to the newest',
  attemptTitle: (event, attempt) => `Attempt ${attempt} of ${event}`,
  backToEndpoint: 'Back to the endpoint',
  facts: {
    at: 'Logged',
    event: 'Event',
    eventId: 'Event id',
    status: 'Result',
    http: 'HTTP status',
    duration: 'Duration',
    reason: 'Failure reason',
  },
  requestTitle: 'What we sent',
  sentAt: (when) => `Sent on ${when}.`,
  headers: 'Headers',
  body: 'Body',
  bodyHidden: 'Hidden for your role: it may carry personal data.',
  bodyGone: 'The event is no longer stored: the body cannot be shown.',
  bodyNotAsSent:
    'The document data was removed from the event by the retention period after this attempt: the body shown lacks it (the signature was over the original).',
  nothingSent: 'Nothing was sent: the circuit was open.',
  notKept: 'This attempt predates our keeping what was sent and received.',
  responseTitle: 'What your server answered',
  noResponse: 'No answer (the connection failed or timed out before the headers).',
  bodyCut: (kept, total) => `First ${kept} of ${total} bytes.`,
  bodyBytes: (total) => `${total} bytes.`,
  emptyBody: '(empty)',
  redeliver: 'Redeliver this event',
  redeliverHint: 'Sends it once more to this endpoint, with a new signature, even while the circuit is open.',
  redelivered: 'We redelivered the event: the attempt shows in the log in a few seconds.',
};

export const WEBHOOK_MESSAGES: Record<Locale, WebhookMessages> = { es, en };
