import type {
  CaptureReadResult,
  DeviceClass,
  Outcome,
  SessionStatus,
  StepVerdict,
  TimelineCapture,
  TimelineKind,
} from '@idv/contracts';
import type { SessionsFilterField } from './sessions';

/** The words of the sessions pages (the list, a session's page, its access trail). */
export interface SessionsMessages {
  title: string;
  lead: string;
  filters: string;
  mode: string;
  modes: Record<'live' | 'test', string>;
  status: string;
  anyStatus: string;
  statuses: Record<SessionStatus, string>;
  outcome: string;
  anyOutcome: string;
  outcomes: Record<Outcome, string>;
  reason: string;
  reasonHint: string;
  project: string;
  anyProject: string;
  ref: string;
  from: string;
  to: string;
  apply: string;
  clear: string;
  columns: { created: string; id: string; status: string; project: string; ref: string; reasons: string; completed: string };
  empty: string;
  older: string;
  newest: string;
  staleCursor: string;
  invalid: Record<SessionsFilterField, string>;
  detail: {
    back: string;
    summary: string;
    createdBy: (key: string) => string;
    createdByTry: string;
    createdByUnknown: string;
    configVersion: string;
    completed: string;
    reasons: string;
    noReasons: string;
    steps: string;
    verdicts: Record<StepVerdict, string>;
    timeline: string;
    timelineEmpty: string;
    personalData: string;
    personalDataNone: string;
    personalDataHidden: string;
    personalDataForbidden: string;
    show: string;
    showNote: string;
    document: string;
    documentFields: Record<string, string>;
    documentRemoved: (at: string) => string;
    channels: string;
    email: string;
    phone: string;
    formData: string;
    cancel: string;
    cancelNote: string;
    accessTrail: string;
  };
  timeline: {
    created: string;
    createdWith: (key: string) => string;
    createdTry: string;
    completed: (status: string) => string;
    delivery: (eventType: string, attempt: number) => string;
    deliveryOk: (httpStatus: number, ms: number) => string;
    deliveryFailed: (reason: string) => string;
    deliveryDetail: string;
    kinds: Record<TimelineKind, string>;
    devices: Record<DeviceClass, string>;
    captures: Record<TimelineCapture, string>;
    results: Record<CaptureReadResult, string>;
    attempt: (attempt: number) => string;
    step: string;
    reasons: string;
    messageShown: string;
    channel: string;
    outcome: string;
    retryAt: string;
  };
  trail: {
    title: (sessionId: string) => string;
    lead: string;
    empty: string;
    columns: { at: string; who: string; what: string; address: string };
    back: string;
    export: string;
  };
}

const es: SessionsMessages = {
  title: 'Sesiones',
  lead: 'Las sesiones de verificación de la cuenta, las más nuevas primero.',
  filters: 'Filtrar sesiones',
  mode: 'Modo',
  modes: { live: 'Real', test: 'Prueba' },
  status: 'Estado',
  anyStatus: 'Cualquier estado',
  statuses: {
    pending: 'Pendiente',
    in_progress: 'En curso',
    approved: 'Aprobada',
    rejected: 'Rechazada',
    expired: 'Vencida',
    abandoned: 'Abandonada',
    canceled: 'Cancelada',
  },
  outcome: 'Resultado',
  anyOutcome: 'Cualquier resultado',
  outcomes: { approved: 'Aprobada', rejected: 'Rechazada', expired: 'Vencida', abandoned: 'Abandonada' },
  reason: 'Código de motivo',
  reasonHint: 'Por ejemplo document_expired.',
  project: 'Proyecto',
  anyProject: 'Todos los proyectos',
  ref: 'Referencia externa',
  from: 'Desde (día)',
  to: 'Hasta (día, incluido)',
  apply: 'Filtrar',
  clear: 'Quitar filtros',
  columns: {
    created: 'Creada',
    id: 'Sesión',
    status: 'Estado',
    project: 'Proyecto',
    ref: 'Referencia externa',
    reasons: 'Motivos',
    completed: 'Terminada',
  },
  empty: 'Ninguna sesión coincide con estos filtros.',
  older: 'Más antiguas',
  newest: 'Volver a las más nuevas',
  staleCursor: 'La página pedida ya no existe con estos filtros: te mostramos las más nuevas.',
  invalid: {
    mode: 'El modo no es uno de los ofrecidos; mostramos el real.',
    status: 'El estado no es uno de los ofrecidos; no filtramos por estado.',
    outcome: 'El resultado no es uno de los ofrecidos; no filtramos por resultado.',
    reason: 'El código de motivo se escribe en minúsculas y guiones bajos (por ejemplo document_expired).',
    project: 'El proyecto no es uno de la cuenta; no filtramos por proyecto.',
    ref: 'La referencia externa tiene hasta 255 caracteres.',
    from: 'La fecha "desde" no es un día válido (AAAA-MM-DD).',
    to: 'La fecha "hasta" no es un día válido o es anterior a "desde".',
    cursor: 'La página pedida no es válida; te mostramos las más nuevas.',
  },
  detail: {
    back: 'Todas las sesiones',
    summary: 'Resumen',
    createdBy: (key) => `Creada con la clave «${key}»`,
    createdByTry: 'Prueba del borrador desde el panel',
    createdByUnknown: 'Creada con una clave que ya no está en la cuenta',
    configVersion: 'Versión de la configuración',
    completed: 'Terminada',
    reasons: 'Motivos',
    noReasons: 'Sin motivos',
    steps: 'Pasos',
    verdicts: { approved: 'Superado', rejected: 'No superado', skipped: 'Omitido', not_reached: 'No alcanzado' },
    timeline: 'Lo que pasó',
    timelineEmpty: 'Todavía no pasó nada con esta sesión.',
    personalData: 'Datos personales',
    personalDataNone: 'Esta sesión no guarda datos personales: la configuración no los pidió o todavía no hay resultado.',
    personalDataHidden:
      'Los datos personales no se muestran hasta que los pidas; cada vez que se muestran queda registrado quién los vio.',
    personalDataForbidden: 'Tu rol no puede ver datos personales.',
    show: 'Mostrar los datos personales',
    showNote: 'Queda registrado en el historial de accesos de la sesión.',
    document: 'Documento',
    documentFields: {
      doc_type: 'Tipo',
      series: 'Ejemplar',
      number: 'Número',
      surname: 'Apellido',
      given_names: 'Nombres',
      sex: 'Sexo',
      birth_date: 'Fecha de nacimiento',
      cuil: 'CUIL',
      expiry_date: 'Vencimiento',
    },
    documentRemoved: (at) => `Los datos del documento se borraron el ${at}, al terminar su plazo de conservación.`,
    channels: 'Canales verificados',
    email: 'Correo',
    phone: 'Teléfono',
    formData: 'Respuestas del formulario',
    cancel: 'Cancelar la sesión',
    cancelNote: 'La persona ya no podrá seguir; se avisa por webhook como cualquier cancelación.',
    accessTrail: 'Quién vio los datos personales',
  },
  timeline: {
    created: 'Creada',
    createdWith: (key) => `Creada con la clave «${key}»`,
    createdTry: 'Creada como prueba del borrador',
    completed: (status) => `Decidida: ${status}`,
    delivery: (eventType, attempt) => `Webhook ${eventType}, intento ${attempt}`,
    deliveryOk: (httpStatus, ms) => `respondió ${httpStatus} en ${ms} ms`,
    deliveryFailed: (reason) => `falló: ${reason}`,
    deliveryDetail: 'Ver el pedido y la respuesta',
    kinds: {
      link_opened: 'Abrió el enlace',
      handed_over: 'Siguió en otro dispositivo',
      step_started: 'Empezó un paso',
      step_decided: 'Paso decidido',
      capture_uploaded: 'Subió una captura',
      capture_read: 'Captura leída',
      code_sent: 'Código enviado',
      code_resent: 'Código reenviado',
      code_send_failed: 'No se pudo enviar el código',
      code_wrong: 'Código incorrecto',
      code_verified: 'Código verificado',
      registry_check_queued: 'Consulta al RENAPER en espera',
      registry_check_attempted: 'Consulta al RENAPER',
      flow_decided: 'El flujo terminó',
    },
    devices: { phone: 'teléfono', tablet: 'tableta', desktop: 'computadora', unknown: 'dispositivo desconocido' },
    captures: { front: 'frente', back: 'dorso', front_angle: 'frente inclinado', face_frames: 'rostro' },
    results: { accepted: 'aceptada', asked_again: 'se pidió de nuevo', refused: 'rechazada' },
    attempt: (attempt) => `intento ${attempt}`,
    step: 'paso',
    reasons: 'motivos',
    messageShown: 'mensaje mostrado',
    channel: 'canal',
    outcome: 'respuesta',
    retryAt: 'se vuelve a intentar',
  },
  trail: {
    title: (sessionId) => `Accesos a los datos de ${sessionId}`,
    lead: 'Cada vez que alguien mostró los datos personales, las imágenes o bajó la evidencia de esta sesión.',
    empty: 'Nadie vio todavía los datos personales de esta sesión.',
    columns: { at: 'Cuándo', who: 'Quién', what: 'Qué', address: 'Desde' },
    back: 'Volver a la sesión',
    export: 'Descargar CSV',
  },
};

const en: SessionsMessages = {
  title: 'Sessions',
  lead: "The account's verification sessions, newest first.",
  filters: 'Filter sessions',
  mode: 'Mode',
  modes: { live: 'Live', test: 'Test' },
  status: 'Status',
  anyStatus: 'Any status',
  statuses: {
    pending: 'Pending',
    in_progress: 'In progress',
    approved: 'Approved',
    rejected: 'Rejected',
    expired: 'Expired',
    abandoned: 'Abandoned',
    canceled: 'Canceled',
  },
  outcome: 'Outcome',
  anyOutcome: 'Any outcome',
  outcomes: { approved: 'Approved', rejected: 'Rejected', expired: 'Expired', abandoned: 'Abandoned' },
  reason: 'Reason code',
  reasonHint: 'For example document_expired.',
  project: 'Project',
  anyProject: 'All projects',
  ref: 'External reference',
  from: 'From (day)',
  to: 'To (day, included)',
  apply: 'Filter',
  clear: 'Clear filters',
  columns: {
    created: 'Created',
    id: 'Session',
    status: 'Status',
    project: 'Project',
    ref: 'External reference',
    reasons: 'Reasons',
    completed: 'Completed',
  },
  empty: 'No session matches these filters.',
  older: 'Older',
  newest: 'Back to the newest',
  staleCursor: 'The page asked for no longer exists with these filters: here are the newest.',
  invalid: {
    mode: 'The mode is not one offered; showing live.',
    status: 'The status is not one offered; not filtering by status.',
    outcome: 'The outcome is not one offered; not filtering by outcome.',
    reason: 'A reason code is written in lower case with underscores (for example document_expired).',
    project: "The project is not one of the account's; not filtering by project.",
    ref: 'The external reference has up to 255 characters.',
    from: 'The "from" date is not a valid day (YYYY-MM-DD).',
    to: 'The "to" date is not a valid day or is before "from".',
    cursor: 'The page asked for is not valid; here are the newest.',
  },
  detail: {
    back: 'All sessions',
    summary: 'Summary',
    createdBy: (key) => `Created with the key “${key}”`,
    createdByTry: 'A try of the draft from the dashboard',
    createdByUnknown: 'Created with a key no longer in the account',
    configVersion: 'Configuration version',
    completed: 'Completed',
    reasons: 'Reasons',
    noReasons: 'No reasons',
    steps: 'Steps',
    verdicts: { approved: 'Passed', rejected: 'Failed', skipped: 'Skipped', not_reached: 'Not reached' },
    timeline: 'What happened',
    timelineEmpty: 'Nothing has happened to this session yet.',
    personalData: 'Personal data',
    personalDataNone: 'This session keeps no personal data: the configuration did not ask for it, or there is no result yet.',
    personalDataHidden: 'Personal data is not shown until you ask for it; each time it is shown, who saw it is recorded.',
    personalDataForbidden: 'Your role cannot see personal data.',
    show: 'Show the personal data',
    showNote: "It is recorded in the session's access trail.",
    document: 'Document',
    documentFields: {
      doc_type: 'Type',
      series: 'Copy',
      number: 'Number',
      surname: 'Surname',
      given_names: 'Given names',
      sex: 'Sex',
      birth_date: 'Date of birth',
      cuil: 'CUIL',
      expiry_date: 'Expiry',
    },
    documentRemoved: (at) => `The document's data was removed on ${at}, at the end of its retention period.`,
    channels: 'Verified channels',
    email: 'E-mail',
    phone: 'Phone',
    formData: 'Form answers',
    cancel: 'Cancel the session',
    cancelNote: 'The person can no longer go on; the webhook tells of it as of any cancellation.',
    accessTrail: 'Who saw the personal data',
  },
  timeline: {
    created: 'Created',
    createdWith: (key) => `Created with the key “${key}”`,
    createdTry: 'Created as a try of the draft',
    completed: (status) => `Decided: ${status}`,
    delivery: (eventType, attempt) => `Webhook ${eventType}, attempt ${attempt}`,
    deliveryOk: (httpStatus, ms) => `answered ${httpStatus} in ${ms} ms`,
    deliveryFailed: (reason) => `failed: ${reason}`,
    deliveryDetail: 'See the request and the response',
    kinds: {
      link_opened: 'Opened the link',
      handed_over: 'Went on on another device',
      step_started: 'Started a step',
      step_decided: 'Step decided',
      capture_uploaded: 'Uploaded a capture',
      capture_read: 'Capture read',
      code_sent: 'Code sent',
      code_resent: 'Code sent again',
      code_send_failed: 'The code could not be sent',
      code_wrong: 'Wrong code',
      code_verified: 'Code verified',
      registry_check_queued: 'Registry (RENAPER) check waiting',
      registry_check_attempted: 'Registry (RENAPER) check',
      flow_decided: 'The flow ended',
    },
    devices: { phone: 'phone', tablet: 'tablet', desktop: 'computer', unknown: 'unknown device' },
    captures: { front: 'front', back: 'back', front_angle: 'tilted front', face_frames: 'face' },
    results: { accepted: 'accepted', asked_again: 'asked for again', refused: 'refused' },
    attempt: (attempt) => `attempt ${attempt}`,
    step: 'step',
    reasons: 'reasons',
    messageShown: 'message shown',
    channel: 'channel',
    outcome: 'answer',
    retryAt: 'asked again at',
  },
  trail: {
    title: (sessionId) => `Access to the data of ${sessionId}`,
    lead: "Each time someone showed this session's personal data or images, or downloaded its evidence.",
    empty: "Nobody has seen this session's personal data yet.",
    columns: { at: 'When', who: 'Who', what: 'What', address: 'From' },
    back: 'Back to the session',
    export: 'Download CSV',
  },
};

export const SESSIONS_MESSAGES = { es, en } as const;
