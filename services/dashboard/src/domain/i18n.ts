import { SESSIONS_MESSAGES, type SessionsMessages } from './i18n-sessions';
import { NOTICES_MESSAGES, TOKEN_COUNT, type NoticesMessages } from './i18n-notices';
import { SESSION_IMAGES_MESSAGES, type SessionImagesMessages } from './i18n-session-images';
import type { AccountStatus, Mode, SessionStatus, StepVerdict } from '@idv/contracts';
import type { AuditFilterField, AuditGroup } from './audit';
import { numberOf, type Locale } from './locale';
import type { PasswordProblem } from './passwords';

export type { Locale };

/** Spanish (Argentina) first; English when the browser asks for it before Spanish. */
export function localeOf(acceptLanguage: string | undefined): Locale {
  const first = (acceptLanguage ?? '')
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .find((tag) => tag.startsWith('es') || tag.startsWith('en'));
  return first?.startsWith('en') ? 'en' : 'es';
}

export type FieldProblem = 'required' | 'too_long' | 'invalid_characters' | 'invalid_email' | 'email_taken' | PasswordProblem;

interface StatusCopy {
  title: string;
  body: string;
}

export interface Messages {
  product: string;
  skip: string;
  signUpTitle: string;
  signUpLead: string;
  organisation: string;
  ownerName: string;
  email: string;
  password: string;
  passwordHint: string;
  createAccount: string;
  haveAccount: string;
  signInTitle: string;
  signIn: string;
  noAccount: string;
  signOut: string;
  switchOrganisation: string;
  signOutEverywhere: string;
  forgot: string;
  forgotTitle: string;
  forgotLead: string;
  sendLinks: string;
  linksSent: string;
  resetTitle: string;
  newPassword: string;
  setPassword: string;
  passwordChanged: string;
  signInLinkTitle: string;
  signInLinkBody: string;
  errorSummary: string;
  fieldProblems: Record<FieldProblem, string>;
  wrongCredentials: string;
  tooManyAttempts: (seconds: number) => string;
  checkMailTitle: string;
  checkMailBody: (email: string) => string;
  confirmTitle: string;
  confirmBody: string;
  confirmButton: string;
  confirmedTitle: string;
  confirmedBody: string;
  linkInvalidTitle: string;
  linkInvalidBody: string;
  formExpiredTitle: string;
  formExpiredBody: string;
  notFoundTitle: string;
  formTooLargeTitle: string;
  formTooLargeBody: string;
  unavailableTitle: string;
  unavailableBody: string;
  notFoundBody: string;
  homeTitle: string;
  accountStatus: Record<AccountStatus, StatusCopy>;
  emailUnconfirmed: string;
  resendConfirmation: string;
  confirmationResent: string;
  signedOutEverywhere: string;
  nav: {
    home: string;
    keys: string;
    projects: string;
    members: string;
    audit: string;
    balance: string;
    usage: string;
    sessions: string;
    webhooks: string;
  };
  forbiddenTitle: string;
  forbiddenBody: string;
  members: {
    title: string;
    lead: string;
    columns: { name: string; email: string; role: string; action: string };
    roles: Record<'owner' | 'developer' | 'viewer', string>;
    pending: string;
    invite: string;
    role: string;
    send: string;
    invited: (email: string) => string;
    alreadyMember: string;
    remove: string;
    lastOwner: string;
    removed: string;
    roleOf: (name: string) => string;
    changeRole: string;
    roleChanged: (email: string, role: string) => string;
    roleInvalid: string;
    acceptTitle: (account: string) => string;
    acceptLead: (email: string, role: string) => string;
    accept: string;
    joinLead: (email: string, role: string) => string;
    join: string;
    signInToJoin: (email: string) => string;
  };
  security: {
    title: string;
    on: string;
    off: string;
    enable: string;
    requiredByOwner: string;
    requireTitle: string;
    requireOn: string;
    requireOff: string;
    saved: string;
  };
  checklist: {
    title: string;
    lead: string;
    done: string;
    missing: string;
    unavailable: string;
    items: Record<'account_active' | 'live_config' | 'live_key' | 'balance' | 'webhook', { label: string; how: string }>;
  };
  keys: {
    title: string;
    lead: string;
    createTitle: string;
    name: string;
    mode: string;
    modes: Record<'test' | 'live', string>;
    scopes: string;
    scopesHint: string;
    create: string;
    none: string;
    columns: {
      name: string;
      id: string;
      mode: string;
      scopes: string;
      created: string;
      lastUsed: string;
      state: string;
      action: string;
    };
    never: string;
    active: string;
    revokedOn: (date: string) => string;
    revoke: string;
    revokeTitle: (name: string) => string;
    revokeBody: string;
    revokeConfirm: string;
    cancel: string;
    revoked: (name: string) => string;
    createdTitle: string;
    createdWarning: string;
    secretLabel: string;
    copy: string;
    done: string;
    duplicate: string;
    liveNeedsActive: string;
    rollTitle: string;
    rollBody: string;
    rollDelay: string;
    delays: Record<'0' | '3600' | '86400' | '604800', string>;
    roll: string;
    revokesOn: (date: string) => string;
    rolledNow: string;
    rolledLater: (date: string) => string;
    rollConflict: string;
  };
  projects: {
    title: string;
    lead: string;
    none: string;
    name: string;
    create: string;
    rename: string;
    pointers: string;
    unpublished: string;
    draftTitle: string;
    draftHint: string;
    save: string;
    saved: string;
    valid: string;
    problems: string;
    publishTo: Record<Mode, string>;
    previewTitle: (mode: string) => string;
    previewLead: (current: string | null) => string;
    noChanges: string;
    confirm: string;
    cancel: string;
    published: (version: string, mode: string) => string;
    stale: string;
    liveNeedsActive: string;
    history: string;
    columns: { version: string; mode: string; created: string; by: string; pointers: string; actions: string };
    compare: string;
    restoreTo: Record<Mode, string>;
    diffTitle: (from: string, to: string) => string;
    duplicate: string;
    tries: {
      start: string;
      title: string;
      lead: string;
      openHere: string;
      scan: string;
      status: string;
      statuses: Record<SessionStatus, string>;
      linkGone: string;
      refresh: string;
      backToEditor: string;
      reasons: string;
      step: string;
      verdict: string;
      verdicts: Record<StepVerdict, string>;
      tooMany: string;
      suspended: string;
      duplicate: string;
    };
  };
  sessions: SessionsMessages;
  /** A session's captured images and its evidence links' uses in the access trail. */
  sessionImages: SessionImagesMessages;
  /** The owners' notices: their e-mails, the low-balance alert's form, their audit entries. */
  notices: NoticesMessages;
  balance: {
    title: string;
    lead: string;
    current: string;
    tokens: (count: number) => string;
    daysLeft: (days: number) => string;
    noPace: string;
    spent: string;
    ledgerTitle: string;
    columns: { at: string; movement: string; tokens: string; detail: string };
    credit: string;
    debit: string;
    noEntries: string;
    older: string;
    newest: string;
  };
  audit: {
    title: string;
    lead: string;
    filters: string;
    group: string;
    allGroups: string;
    groups: Record<AuditGroup, string>;
    actor: string;
    allActors: string;
    operator: string;
    nobody: string;
    from: string;
    to: string;
    apply: string;
    clear: string;
    columns: { at: string; actor: string; action: string; target: string; address: string };
    empty: string;
    older: string;
    newest: string;
    export: string;
    invalid: Record<AuditFilterField, string>;
    /** Each action as a reader says it; an action without a name here is shown as logged. */
    actions: Record<string, string>;
  };
  organisations: {
    title: string;
    status: Record<AccountStatus, string>;
    lead: string;
    current: string;
    switchTo: string;
    createTitle: string;
    createLead: string;
    create: string;
    duplicate: string;
  };
  operator: {
    console: string;
    signInTitle: string;
    enrolTitle: string;
    enrolBody: string;
    enrolManual: string;
    verifyTitle: string;
    verifyBody: string;
    code: string;
    codeHint: string;
    confirm: string;
    wrongCode: string;
    recoveryTitle: string;
    recoveryBody: string;
    continue: string;
    tabs: Record<AccountStatus, string>;
    none: string;
    columns: { name: string; email: string; created: string; waiting: string };
    age: (hours: number) => string;
    accountTitle: (name: string) => string;
    status: string;
    owners: string;
    balance: string;
    keys: string;
    noKeys: string;
    projects: string;
    noProjects: string;
    pointer: (mode: Mode, version: string | null) => string;
    usageTitle: (month: string) => string;
    usageMode: string;
    usageSessions: string;
    tokensDebited: (tokens: number) => string;
    reason: string;
    reasonHint: string;
    approve: string;
    suspend: string;
    decided: Record<'approve' | 'suspend', string>;
    credit: string;
    tokens: string;
    credited: (balance: number) => string;
    duplicate: string;
  };
  mail: {
    confirmSubject: string;
    confirmText: (name: string, link: string, hours: number) => string;
    inviteSubject: (account: string) => string;
    inviteText: (account: string, role: string, link: string, days: number) => string;
    accessSubject: string;
    accessText: (name: string, signInLink: string, resetLink: string) => string;
    decisionSubject: (status: AccountStatus) => string;
    decisionText: (name: string, status: AccountStatus, reason: string) => string;
  };
}

const es: Messages = {
  sessions: SESSIONS_MESSAGES.es,
  sessionImages: SESSION_IMAGES_MESSAGES.es,
  notices: NOTICES_MESSAGES.es,
  product: 'Verificación de identidad',
  skip: 'Saltar al contenido',
  signUpTitle: 'Crear una cuenta',
  signUpLead:
    'Creá la cuenta de tu organización. Vas a poder armar y probar flujos en modo de prueba enseguida; el modo real se habilita cuando nuestro equipo apruebe la cuenta.',
  organisation: 'Nombre de la organización',
  ownerName: 'Tu nombre',
  email: 'Correo electrónico',
  password: 'Contraseña',
  passwordHint: 'Al menos 10 caracteres. Una frase de varias palabras es fácil de recordar y difícil de adivinar.',
  createAccount: 'Crear cuenta',
  haveAccount: '¿Ya tenés una cuenta? Ingresá',
  signInTitle: 'Ingresar',
  signIn: 'Ingresar',
  noAccount: '¿No tenés cuenta? Creá una',
  signOut: 'Salir',
  switchOrganisation: 'Tus organizaciones: cambiar o crear otra',
  signOutEverywhere: 'Cerrar sesión en todos los dispositivos',
  forgot: '¿No podés entrar? Te mandamos un enlace',
  forgotTitle: 'Entrar con un enlace por correo',
  forgotLead:
    'Te mandamos un enlace para ingresar sin contraseña y otro para elegir una contraseña nueva. Sirve aunque tu contraseña esté bloqueada por intentos fallidos.',
  sendLinks: 'Mandame los enlaces',
  linksSent: 'Si hay una cuenta con ese correo, te mandamos los enlaces. Revisá tu correo.',
  resetTitle: 'Elegí una contraseña nueva',
  newPassword: 'Contraseña nueva',
  setPassword: 'Guardar la contraseña',
  passwordChanged: 'Cambiaste tu contraseña y cerramos tus otras sesiones. Ingresá con la nueva.',
  signInLinkTitle: 'Ingresar con el enlace',
  signInLinkBody: 'Tocá el botón para ingresar a tu cuenta en este navegador.',
  errorSummary: 'Revisá estos datos',
  fieldProblems: {
    required: 'Completá este dato.',
    too_long: 'Es demasiado largo.',
    invalid_characters: 'Tiene caracteres que no se pueden usar (de control).',
    invalid_email: 'Escribí un correo válido, por ejemplo nombre@empresa.com.',
    email_taken: 'Ya hay una cuenta con este correo. Ingresá con él o recuperá tu contraseña.',
    too_short: 'La contraseña debe tener al menos 10 caracteres.',
    common: 'Esa contraseña es de las más usadas y fácil de adivinar. Elegí otra.',
    same_as_email: 'La contraseña no puede ser tu correo.',
  },
  wrongCredentials: 'El correo o la contraseña no son correctos.',
  tooManyAttempts: (seconds) => `Demasiados intentos. Probá de nuevo en ${Math.ceil(seconds / 60)} minuto(s).`,
  checkMailTitle: 'Revisá tu correo',
  checkMailBody: (email) =>
    `Te mandamos un enlace a ${email} para confirmar la dirección. Abrilo desde este u otro dispositivo; vence en 24 horas.`,
  confirmTitle: 'Confirmar tu correo',
  confirmBody: 'Tocá el botón para confirmar que este correo es tuyo.',
  confirmButton: 'Confirmar correo',
  confirmedTitle: 'Correo confirmado',
  confirmedBody: 'Listo. Ya podés ingresar.',
  linkInvalidTitle: 'Este enlace ya no sirve',
  linkInvalidBody: 'El enlace ya se usó o venció. Ingresá con tu correo y contraseña y pedí uno nuevo desde el inicio.',
  formExpiredTitle: 'El formulario venció',
  formExpiredBody: 'Por seguridad, volvé a la página anterior, recargala y enviá el formulario de nuevo.',
  notFoundTitle: 'No encontramos esta página',
  formTooLargeTitle: 'El formulario es demasiado grande',
  formTooLargeBody: 'Acortá los datos y volvé a enviarlo.',
  unavailableTitle: 'No pudimos completar la acción',
  unavailableBody: 'Tuvimos un problema de nuestro lado. No se perdió nada: esperá un momento y probá de nuevo.',
  notFoundBody: 'Revisá la dirección o volvé al inicio.',
  homeTitle: 'Inicio',
  accountStatus: {
    pending: {
      title: 'Tu cuenta espera aprobación',
      body: 'Nuestro equipo revisa los datos de la organización y su uso previsto antes de habilitar el modo real; suele tardar un día hábil. Mientras tanto podés armar y publicar flujos de prueba. Te avisamos por correo.',
    },
    active: { title: 'Tu cuenta está activa', body: 'Podés usar el modo real.' },
    suspended: {
      title: 'Tu cuenta está suspendida',
      body: 'La API rechaza sus claves. Escribinos para saber por qué y cómo reactivarla.',
    },
  },
  emailUnconfirmed: 'Confirmá tu correo: te mandamos un enlace al crear la cuenta.',
  resendConfirmation: 'Reenviar el enlace',
  confirmationResent: 'Te mandamos un enlace nuevo.',
  signedOutEverywhere: 'Cerramos tu sesión en todos los dispositivos.',
  nav: {
    home: 'Inicio',
    keys: 'Claves de API',
    projects: 'Proyectos',
    members: 'Equipo',
    audit: 'Auditoría',
    balance: 'Fichas',
    usage: 'Uso',
    sessions: 'Sesiones',
    webhooks: 'Webhooks',
  },
  members: {
    title: 'Equipo',
    lead: 'Quiénes trabajan en esta cuenta. Dueños: todo. Desarrolladores: todo menos el equipo y la cuenta. Lectores: solo leen, nunca ven secretos ni datos personales.',
    columns: { name: 'Nombre', email: 'Correo', role: 'Rol', action: 'Acción' },
    roles: { owner: 'Dueño', developer: 'Desarrollador', viewer: 'Lector' },
    pending: 'Invitaciones pendientes',
    invite: 'Invitar a alguien',
    role: 'Rol',
    send: 'Mandar la invitación',
    invited: (email) => `Invitamos a ${email}.`,
    alreadyMember: 'Esa persona ya es parte de esta cuenta.',
    remove: 'Quitar',
    lastOwner: 'La cuenta necesita al menos un dueño.',
    removed: 'Quitaste a esa persona de la cuenta.',
    roleOf: (name) => `Rol de ${name}`,
    changeRole: 'Cambiar el rol',
    roleChanged: (email, role) => `${email} ahora es ${role}.`,
    roleInvalid: 'Elegí uno de los roles de la lista.',
    acceptTitle: (account) => `Unite a ${account}`,
    acceptLead: (email, role) => `Vas a ingresar como ${email}, con el rol ${role}. Elegí tu nombre y una contraseña.`,
    accept: 'Aceptar la invitación',
    joinLead: (email, role) =>
      `Ya tenés una cuenta en el panel con ${email}. Sumate con el rol ${role}: vas a seguir entrando con tu contraseña de siempre y podés pasar de una organización a otra desde el encabezado.`,
    join: 'Sumarme a esta cuenta',
    signInToJoin: (email) =>
      `Esta invitación es para ${email}, que ya tiene una cuenta en el panel. Ingresá con esa cuenta y volvé a abrir el enlace del correo.`,
  },
  security: {
    title: 'Seguridad',
    on: 'La verificación en dos pasos está activada: al ingresar te pedimos el código de tu app.',
    off: 'La verificación en dos pasos no está activada.',
    enable: 'Activar la verificación en dos pasos',
    requiredByOwner: 'Quien administra esta cuenta pide verificación en dos pasos a todo el equipo. Activala para seguir.',
    requireTitle: 'Para todo el equipo',
    requireOn: 'Exigirla a todo el equipo',
    requireOff: 'Dejar de exigirla',
    saved: 'Guardamos el ajuste.',
  },
  checklist: {
    title: 'Para salir a producción',
    lead: 'Lo calculamos del estado real de tu cuenta.',
    done: 'Listo',
    missing: 'Falta',
    unavailable: 'No pudimos comprobar la lista ahora; recargá en un momento.',
    items: {
      account_active: { label: 'Cuenta aprobada', how: 'Nuestro equipo la revisa; te avisamos por correo.' },
      live_config: { label: 'Un flujo publicado en real', how: 'Publicalo desde Proyectos.' },
      live_key: { label: 'Una clave real', how: 'Creala en Claves de API.' },
      balance: { label: 'Fichas disponibles', how: 'Cada sesión real usa una ficha; pedinos fichas para tu cuenta.' },
      webhook: {
        label: 'Un webhook que recibe los veredictos',
        how: 'Registrá un endpoint suscrito a verification_session.approved y .rejected (POST /v1/webhook-endpoints) y mandale un evento de prueba que responda 2xx (POST /v1/webhook-endpoints/{id}/test).',
      },
    },
  },
  forbiddenTitle: 'No tenés permiso',
  forbiddenBody: 'Tu rol en esta cuenta no permite esta acción. Pedísela a quien administra la cuenta.',
  keys: {
    title: 'Claves de API',
    lead: 'Tu servidor usa estas claves para crear sesiones y leer resultados. Las de prueba nunca gastan fichas; las reales, sí.',
    createTitle: 'Crear una clave',
    name: 'Nombre (para reconocerla)',
    mode: 'Modo',
    modes: { test: 'Prueba', live: 'Real' },
    scopes: 'Permisos',
    scopesHint: 'Dale a cada clave solo lo que necesita. La API hace cumplir estos permisos.',
    create: 'Crear clave',
    none: 'Todavía no hay claves.',
    columns: {
      name: 'Nombre',
      id: 'Id',
      mode: 'Modo',
      scopes: 'Permisos',
      created: 'Creada',
      lastUsed: 'Último uso',
      state: 'Estado',
      action: 'Acción',
    },
    never: 'nunca',
    active: 'activa',
    revokedOn: (date) => `revocada el ${date}`,
    revoke: 'Revocar',
    revokeTitle: (name) => `¿Revocar la clave «${name}»?`,
    revokeBody:
      'La API la rechaza en cuanto la revocás, en todas las réplicas. No se puede deshacer; queda en la lista para auditoría.',
    revokeConfirm: 'Sí, revocar',
    cancel: 'Cancelar',
    revoked: (name) => `Revocaste la clave «${name}».`,
    createdTitle: 'Tu clave nueva',
    createdWarning: 'Copiala ahora y guardala en un lugar seguro: no la vamos a mostrar nunca más.',
    secretLabel: 'Clave secreta',
    copy: 'Copiar',
    done: 'Ya la guardé',
    duplicate: 'Ese formulario ya se envió: la clave está en la lista. Si no copiaste el secreto, revocala y creá otra.',
    liveNeedsActive: 'Las claves reales se habilitan cuando aprobamos la cuenta. Mientras tanto, usá claves de prueba.',
    rollTitle: 'O rotarla',
    rollBody:
      'Crea una clave nueva con el mismo nombre, modo y permisos, y revoca esta cuando elijas: así cambiás la clave en tu servidor sin cortar el servicio.',
    rollDelay: 'Revocar esta',
    delays: { '0': 'ahora', '3600': 'en 1 hora', '86400': 'en 24 horas', '604800': 'en 7 días' },
    roll: 'Rotar la clave',
    revokesOn: (date) => `se revoca el ${date}`,
    rolledNow: 'La clave anterior quedó revocada.',
    rolledLater: (date) => `La clave anterior sigue funcionando hasta el ${date}.`,
    rollConflict: 'Esa clave ya está revocada o rotándose.',
  },
  projects: {
    title: 'Proyectos',
    lead: 'Cada proyecto tiene un flujo. Lo editás como borrador y lo publicás en prueba o en real; cada publicación queda congelada como una versión.',
    none: 'Todavía no hay proyectos.',
    name: 'Nombre del proyecto',
    create: 'Crear proyecto',
    rename: 'Cambiar el nombre',
    pointers: 'Publicado',
    unpublished: 'sin publicar',
    draftTitle: 'Borrador del flujo (JSON)',
    draftHint: 'El consentimiento va siempre primero. Se valida con el mismo esquema que la publicación.',
    save: 'Guardar borrador',
    saved: 'Borrador guardado.',
    valid: 'El borrador es válido.',
    problems: 'El borrador tiene problemas; se guardó igual, pero no se puede publicar así:',
    publishTo: { test: 'Publicar en prueba', live: 'Publicar en real' },
    previewTitle: (mode) => `Publicar en ${mode}`,
    previewLead: (current) =>
      current
        ? `Cambios respecto de ${current}, la versión actual de este modo:`
        : 'Este modo no tiene versión publicada todavía. Se publicará esto:',
    noChanges: 'No hay cambios respecto de la versión actual.',
    confirm: 'Confirmar y publicar',
    cancel: 'Volver',
    published: (version, mode) => `Publicaste ${version} en ${mode}.`,
    stale: 'Alguien publicó en este modo mientras revisabas. Revisá los cambios de nuevo.',
    liveNeedsActive: 'El modo real se habilita cuando aprobamos la cuenta.',
    history: 'Historial de versiones',
    columns: { version: 'Versión', mode: 'Modo', created: 'Publicada', by: 'Por', pointers: 'En uso', actions: 'Acciones' },
    compare: 'Comparar con la anterior',
    restoreTo: { test: 'Volver a esta en prueba', live: 'Volver a esta en real' },
    diffTitle: (from, to) => `Diferencias de ${from} a ${to}`,
    duplicate: 'Ese formulario ya se envió: el proyecto está en la lista.',
    tries: {
      start: 'Probar el borrador',
      title: 'Prueba del borrador',
      lead: 'Esta prueba recorre el borrador tal como quedó guardado, sin publicarlo: no descuenta tokens, no aparece en la API y no envía webhooks. El enlace sirve una vez y durante una hora.',
      openHere: 'Abrir el flujo en esta pantalla',
      scan: 'O escaneá el código con el teléfono:',
      status: 'Estado',
      statuses: {
        pending: 'sin abrir',
        in_progress: 'en curso',
        approved: 'aprobada',
        rejected: 'rechazada',
        expired: 'vencida',
        abandoned: 'abandonada',
        canceled: 'cancelada',
      },
      linkGone: 'El enlace ya se abrió o venció. Para otra prueba, volvé al editor.',
      refresh: 'Actualizar el estado',
      backToEditor: 'Volver al editor',
      reasons: 'Motivos',
      step: 'Paso',
      verdict: 'Resultado',
      verdicts: { approved: 'aprobado', rejected: 'rechazado', skipped: 'omitido', not_reached: 'no alcanzado' },
      tooMany: 'Hiciste muchas pruebas en la última hora. Esperá un rato o publicá en prueba y usá una clave de prueba.',
      suspended: 'La cuenta está suspendida: no se pueden hacer pruebas.',
      duplicate: 'Ese botón ya se apretó: la prueba se abrió con el primer envío.',
    },
  },
  balance: {
    title: 'Fichas',
    lead: 'Cada sesión en modo real usa una ficha; las de prueba y las pruebas de borradores no usan ninguna. Las fichas las acredita el equipo del servicio.',
    current: 'Saldo',
    tokens: TOKEN_COUNT.es,
    daysLeft: (days) =>
      days === 0
        ? 'Al ritmo de los últimos 7 días no alcanzan para un día más.'
        : `Al ritmo de los últimos 7 días alcanzan para unos ${numberOf('es', days)} días.`,
    noPace: 'En los últimos 7 días no se usó ninguna: no hay un ritmo para estimar cuánto duran.',
    spent: 'No quedan fichas: las sesiones en modo real se rechazan (402) hasta que se acrediten más.',
    ledgerTitle: 'Movimientos',
    columns: { at: 'Cuándo', movement: 'Movimiento', tokens: 'Fichas', detail: 'Detalle' },
    credit: 'Crédito',
    debit: 'Sesión',
    noEntries: 'Todavía no hay movimientos.',
    older: 'Ver más antiguos',
    newest: 'Volver a los más recientes',
  },
  audit: {
    title: 'Auditoría',
    lead: 'Todo lo que hizo cada persona de esta cuenta, y el operador del servicio: qué, cuándo y desde qué dirección. No se puede cambiar ni borrar.',
    filters: 'Filtrar',
    group: 'Tipo de acción',
    allGroups: 'Todas',
    groups: {
      sign_in: 'Ingresos y seguridad',
      keys: 'Claves de API',
      flows: 'Proyectos y flujos',
      sessions: 'Sesiones y datos personales',
      webhooks: 'Webhooks',
      members: 'Equipo',
      account: 'Cuenta',
    },
    actor: 'Quién',
    allActors: 'Cualquiera',
    operator: 'El operador del servicio',
    nobody: '—',
    from: 'Desde (día)',
    to: 'Hasta (día)',
    apply: 'Filtrar',
    clear: 'Ver todo',
    columns: { at: 'Cuándo', actor: 'Quién', action: 'Qué', target: 'Sobre', address: 'Dirección' },
    empty: 'No hay acciones con estos filtros.',
    older: 'Ver más antiguas',
    newest: 'Volver a las más recientes',
    export: 'Descargar CSV (con estos filtros)',
    invalid: {
      group: 'No conocemos ese tipo de acción: mostramos todas.',
      actor: 'Esa persona no es válida: mostramos las de cualquiera.',
      from: 'La fecha “desde” tiene que ser un día (AAAA-MM-DD): no la usamos.',
      to: 'La fecha “hasta” tiene que ser un día (AAAA-MM-DD): no la usamos.',
      before: 'El enlace de la página no es válido: mostramos las más recientes.',
    },
    actions: {
      'member.role_changed': 'Cambió el rol de un miembro',
      'session.data_shown': 'Mostró los datos personales de una sesión',
      'session.images_shown': 'Mostró las imágenes de una sesión',
      'session.evidence_downloaded': 'Bajó la evidencia de una sesión',
      'session.canceled': 'Canceló una sesión',
      'account.signed_up': 'Creó la cuenta',
      'account.created': 'Creó la organización',
      'account.approved': 'Aprobó la cuenta',
      'account.suspended': 'Suspendió la cuenta',
      'account.credited': 'Acreditó fichas',
      'account.owner_added_by_operator': 'Agregó un dueño',
      'account.totp_required': 'Exigió el segundo factor a todo el equipo',
      'account.totp_optional': 'Dejó el segundo factor opcional',
      'api_key.created': 'Creó una clave de API',
      'webhook_endpoint.created': 'Creó un endpoint de webhooks',
      'webhook_endpoint.updated': 'Editó un endpoint de webhooks',
      'webhook_endpoint.disabled': 'Desactivó un endpoint de webhooks',
      'webhook_endpoint.enabled': 'Activó un endpoint de webhooks',
      'webhook_endpoint.deleted': 'Eliminó un endpoint de webhooks',
      'webhook_endpoint.secret_rotated': 'Renovó el secreto de un endpoint de webhooks',
      'webhook_endpoint.test_sent': 'Mandó un evento de prueba',
      'webhook_delivery.redelivered': 'Reenvió un evento',
      'webhook_endpoint.retry_started': 'Reintentó las entregas fallidas de un endpoint',
      'api_key.revoked': 'Revocó una clave de API',
      'api_key.rolled': 'Renovó una clave de API',
      'audit.exported': 'Descargó la auditoría',
      ...NOTICES_MESSAGES.es.auditActions,
      ...SESSION_IMAGES_MESSAGES.es.auditActions,
      'usage.exported': 'Descargó el uso de un mes (CSV)',
      'config.published_test': 'Publicó un flujo en prueba',
      'config.published_live': 'Publicó un flujo en real',
      'config.tried': 'Probó un borrador',
      'member.invited': 'Invitó a alguien',
      'member.joined': 'Se sumó al equipo',
      'member.removed': 'Quitó a alguien del equipo',
      'project.created': 'Creó un proyecto',
      'project.renamed': 'Renombró un proyecto',
      'user.access_links_sent': 'Pidió un enlace de ingreso',
      'user.email_confirmed': 'Confirmó su correo',
      'user.password_accepted': 'Dio su contraseña (falta el código)',
      'user.password_reset': 'Cambió su contraseña',
      'user.second_factor_failed': 'Dio un código incorrecto',
      'user.sign_in_failed': 'Falló un ingreso',
      'user.signed_in': 'Ingresó',
      'user.signed_in_with_link': 'Ingresó con un enlace',
      'user.signed_in_with_recovery_code': 'Ingresó con un código de recuperación',
      'user.signed_out': 'Salió',
      'user.signed_out_everywhere': 'Cerró sus sesiones en todos lados',
      'user.switched_account': 'Pasó a trabajar en esta organización',
      'user.totp_enrolled': 'Activó el segundo factor',
    },
  },
  organisations: {
    title: 'Tus organizaciones',
    status: { pending: 'pendiente de aprobación', active: 'activa', suspended: 'suspendida' },
    lead: 'Podés ser parte de más de una organización; cada una tiene sus proyectos, claves y equipo. Trabajás en una a la vez.',
    current: 'en la que estás trabajando',
    switchTo: 'Trabajar en esta',
    createTitle: 'Otra organización',
    createLead: 'Se crea pendiente de aprobación, con vos como dueña o dueño, y pasás a trabajar en ella.',
    create: 'Crear organización',
    duplicate: 'Ese formulario ya se envió: la organización está en la lista.',
  },
  operator: {
    console: 'Consola de operación',
    signInTitle: 'Ingreso de operadores',
    enrolTitle: 'Configurá tu segundo factor',
    enrolBody:
      'Escaneá este código con tu app de autenticación (Google Authenticator, 1Password, Aegis…) y escribí el código de 6 dígitos que muestra.',
    enrolManual: 'Si no podés escanearlo, cargá esta clave a mano:',
    verifyTitle: 'Código de verificación',
    verifyBody: 'Escribí el código de 6 dígitos de tu app de autenticación, o uno de tus códigos de recuperación.',
    code: 'Código',
    codeHint: '6 dígitos, o un código de recuperación',
    confirm: 'Confirmar',
    wrongCode: 'El código no es correcto o ya se usó. Esperá el siguiente y probá de nuevo.',
    recoveryTitle: 'Tus códigos de recuperación',
    recoveryBody:
      'Guardalos fuera de este dispositivo. Cada uno sirve una vez si perdés el teléfono. No los vamos a mostrar de nuevo.',
    continue: 'Ya los guardé',
    tabs: { pending: 'Pendientes', active: 'Activas', suspended: 'Suspendidas' },
    none: 'No hay cuentas en este estado.',
    columns: { name: 'Organización', email: 'Correo', created: 'Creada', waiting: 'Antigüedad' },
    age: (hours) => (hours < 48 ? `${hours} h` : `${Math.floor(hours / 24)} días`),
    accountTitle: (name) => `Cuenta: ${name}`,
    status: 'Estado',
    owners: 'Dueños',
    balance: 'Saldo de fichas',
    keys: 'Claves (nunca se muestran los secretos)',
    noKeys: 'Sin claves.',
    projects: 'Proyectos',
    noProjects: 'Sin proyectos.',
    pointer: (mode, version) => `${mode === 'test' ? 'prueba' : 'real'}: ${version ?? 'sin publicar'}`,
    usageTitle: (month) => `Uso de ${month}`,
    usageMode: 'Modo',
    usageSessions: 'Sesiones por estado',
    tokensDebited: (tokens) => `Fichas debitadas en el mes: ${tokens}.`,
    reason: 'Motivo',
    reasonHint: 'Se lo contamos por correo a los dueños de la cuenta y queda en la auditoría.',
    approve: 'Aprobar',
    suspend: 'Suspender',
    decided: { approve: 'Cuenta aprobada; avisamos a sus dueños.', suspend: 'Cuenta suspendida; avisamos a sus dueños.' },
    credit: 'Acreditar fichas',
    tokens: 'Fichas',
    credited: (balance) => `Fichas acreditadas. Saldo: ${balance}.`,
    duplicate: 'Ese formulario ya se envió; no se repitió la acción.',
  },
  mail: {
    confirmSubject: 'Confirmá tu correo',
    confirmText: (name, link, hours) =>
      `Hola ${name}:\n\nPara confirmar tu correo, abrí este enlace:\n\n${link}\n\nVence en ${hours} horas y sirve una sola vez. Si no creaste una cuenta, ignorá este mensaje.\n`,
    inviteSubject: (account) => `Te invitaron a ${account}`,
    inviteText: (account, role, link, days) =>
      `Hola:\n\nTe invitaron a la cuenta de ${account} en el panel de verificación de identidad, con el rol ${role}.\n\nPara aceptar, abrí este enlace (vence en ${days} días y sirve una sola vez):\n\n${link}\n\nSi no esperabas esta invitación, ignorá este mensaje.\n`,
    accessSubject: 'Ingresá a tu cuenta',
    accessText: (name, signInLink, resetLink) =>
      `Hola ${name}:\n\nPediste entrar a tu cuenta. Para ingresar sin contraseña, abrí este enlace (vence en 15 minutos):\n\n${signInLink}\n\nPara elegir una contraseña nueva, abrí este otro (vence en 30 minutos; cierra tus otras sesiones):\n\n${resetLink}\n\nCada enlace sirve una sola vez. Si no lo pediste, ignorá este mensaje: tu contraseña no cambió.\n`,
    decisionSubject: (status) =>
      status === 'active'
        ? 'Tu cuenta fue aprobada'
        : status === 'suspended'
          ? 'Tu cuenta fue suspendida'
          : 'Tu cuenta cambió de estado',
    decisionText: (name, status, reason) =>
      status === 'active'
        ? `Hola ${name}:\n\nAprobamos tu cuenta: ya podés crear claves reales y publicar flujos en modo real.\n\nNota del equipo: ${reason}\n`
        : `Hola ${name}:\n\nSuspendimos tu cuenta: la API rechaza sus claves mientras tanto.\n\nMotivo: ${reason}\n\nRespondé este correo para hablar con el equipo.\n`,
  },
};

const en: Messages = {
  sessions: SESSIONS_MESSAGES.en,
  sessionImages: SESSION_IMAGES_MESSAGES.en,
  notices: NOTICES_MESSAGES.en,
  product: 'Identity verification',
  skip: 'Skip to content',
  signUpTitle: 'Create an account',
  signUpLead:
    "Create your organisation's account. You can build and try flows in test mode right away; live mode opens once our team approves the account.",
  organisation: 'Organisation name',
  ownerName: 'Your name',
  email: 'E-mail',
  password: 'Password',
  passwordHint: 'At least 10 characters. A phrase of several words is easy to remember and hard to guess.',
  createAccount: 'Create account',
  haveAccount: 'Already have an account? Sign in',
  signInTitle: 'Sign in',
  signIn: 'Sign in',
  noAccount: "Don't have an account? Create one",
  signOut: 'Sign out',
  switchOrganisation: 'Your organisations: switch or create another',
  signOutEverywhere: 'Sign out on every device',
  forgot: 'Cannot get in? We will e-mail you a link',
  forgotTitle: 'Get in with a link by e-mail',
  forgotLead:
    'We send you a link to sign in without your password and another to choose a new password. It works even when your password is held after failed attempts.',
  sendLinks: 'Send me the links',
  linksSent: 'If an account has that e-mail, we sent it the links. Check your e-mail.',
  resetTitle: 'Choose a new password',
  newPassword: 'New password',
  setPassword: 'Save the password',
  passwordChanged: 'You changed your password and we ended your other sign-ins. Sign in with the new one.',
  signInLinkTitle: 'Sign in with the link',
  signInLinkBody: 'Press the button to sign in to your account in this browser.',
  errorSummary: 'Please check these fields',
  fieldProblems: {
    required: 'Fill this in.',
    too_long: 'This is too long.',
    invalid_characters: 'It has characters that cannot be used (control characters).',
    invalid_email: 'Enter a valid e-mail, such as name@company.com.',
    email_taken: 'An account already uses this e-mail. Sign in with it or reset your password.',
    too_short: 'The password must be at least 10 characters long.',
    common: 'That password is among the most used and easy to guess. Choose another.',
    same_as_email: 'The password cannot be your e-mail.',
  },
  wrongCredentials: 'The e-mail or the password is not right.',
  tooManyAttempts: (seconds) => `Too many attempts. Try again in ${Math.ceil(seconds / 60)} minute(s).`,
  checkMailTitle: 'Check your e-mail',
  checkMailBody: (email) =>
    `We sent a link to ${email} to confirm the address. Open it on this or another device; it expires in 24 hours.`,
  confirmTitle: 'Confirm your e-mail',
  confirmBody: 'Press the button to confirm this e-mail is yours.',
  confirmButton: 'Confirm e-mail',
  confirmedTitle: 'E-mail confirmed',
  confirmedBody: 'Done. You can sign in now.',
  linkInvalidTitle: 'This link no longer works',
  linkInvalidBody:
    'It was used already or expired. Sign in with your e-mail and password and ask for a new one on the home page.',
  formExpiredTitle: 'The form expired',
  formExpiredBody: 'For your security, go back, reload the page and send the form again.',
  notFoundTitle: 'Page not found',
  formTooLargeTitle: 'The form is too large',
  formTooLargeBody: 'Shorten what you entered and send it again.',
  unavailableTitle: 'We could not complete that',
  unavailableBody: 'Something failed on our side. Nothing was lost: wait a moment and try again.',
  notFoundBody: 'Check the address or go back home.',
  homeTitle: 'Home',
  accountStatus: {
    pending: {
      title: 'Your account is waiting for approval',
      body: "Our team reviews the organisation's details and intended use before opening live mode; it usually takes one business day. Meanwhile you can build and publish test flows. We will tell you by e-mail.",
    },
    active: { title: 'Your account is active', body: 'You can use live mode.' },
    suspended: {
      title: 'Your account is suspended',
      body: 'The API refuses its keys. Write to us to learn why and how to reactivate it.',
    },
  },
  emailUnconfirmed: 'Confirm your e-mail: we sent you a link when the account was created.',
  resendConfirmation: 'Send the link again',
  confirmationResent: 'We sent you a new link.',
  signedOutEverywhere: 'You were signed out on every device.',
  nav: {
    home: 'Home',
    keys: 'API keys',
    projects: 'Projects',
    members: 'Team',
    audit: 'Audit log',
    balance: 'Tokens',
    usage: 'Usage',
    sessions: 'Sessions',
    webhooks: 'Webhooks',
  },
  members: {
    title: 'Team',
    lead: 'Who works in this account. Owners: everything. Developers: all but the team and the account. Viewers: read only, never secrets nor personal data.',
    columns: { name: 'Name', email: 'E-mail', role: 'Role', action: 'Action' },
    roles: { owner: 'Owner', developer: 'Developer', viewer: 'Viewer' },
    pending: 'Pending invitations',
    invite: 'Invite someone',
    role: 'Role',
    send: 'Send the invitation',
    invited: (email) => `We invited ${email}.`,
    alreadyMember: 'That person is already a member of this account.',
    remove: 'Remove',
    lastOwner: 'The account needs at least one owner.',
    removed: 'You removed that person from the account.',
    roleOf: (name) => `Role of ${name}`,
    changeRole: 'Change the role',
    roleChanged: (email, role) => `${email} is now ${role}.`,
    roleInvalid: 'Choose one of the roles in the list.',
    acceptTitle: (account) => `Join ${account}`,
    acceptLead: (email, role) => `You will sign in as ${email}, with the role ${role}. Choose your name and a password.`,
    accept: 'Accept the invitation',
    joinLead: (email, role) =>
      `You already have a dashboard account with ${email}. Join with the role ${role}: you keep signing in with your usual password and can move between organisations from the header.`,
    join: 'Join this account',
    signInToJoin: (email) =>
      `This invitation is for ${email}, which already has a dashboard account. Sign in with it and open the link in the e-mail again.`,
  },
  security: {
    title: 'Security',
    on: 'Two-step verification is on: at sign-in we ask for the code of your app.',
    off: 'Two-step verification is off.',
    enable: 'Turn on two-step verification',
    requiredByOwner: 'Whoever manages this account requires two-step verification of the whole team. Turn it on to continue.',
    requireTitle: 'For the whole team',
    requireOn: 'Require it of the whole team',
    requireOff: 'Stop requiring it',
    saved: 'The setting was saved.',
  },
  checklist: {
    title: 'To go live',
    lead: "Computed from your account's real state.",
    done: 'Done',
    missing: 'Missing',
    unavailable: 'We could not check the list now; reload in a moment.',
    items: {
      account_active: { label: 'Account approved', how: 'Our team reviews it; we tell you by e-mail.' },
      live_config: { label: 'A flow published to live', how: 'Publish it from Projects.' },
      live_key: { label: 'A live key', how: 'Create it in API keys.' },
      balance: { label: 'Tokens available', how: 'Each live session uses one token; ask us for tokens for your account.' },
      webhook: {
        label: 'A webhook that receives the verdicts',
        how: 'Register an endpoint subscribed to verification_session.approved and .rejected (POST /v1/webhook-endpoints) and send it a test event that answers 2xx (POST /v1/webhook-endpoints/{id}/test).',
      },
    },
  },
  forbiddenTitle: 'Not allowed',
  forbiddenBody: 'Your role in this account does not allow this. Ask whoever manages the account.',
  keys: {
    title: 'API keys',
    lead: 'Your server uses these keys to create sessions and read results. Test keys never spend tokens; live keys do.',
    createTitle: 'Create a key',
    name: 'Name (to recognise it)',
    mode: 'Mode',
    modes: { test: 'Test', live: 'Live' },
    scopes: 'Permissions',
    scopesHint: 'Give each key only what it needs. The API enforces these permissions.',
    create: 'Create key',
    none: 'No keys yet.',
    columns: {
      name: 'Name',
      id: 'Id',
      mode: 'Mode',
      scopes: 'Permissions',
      created: 'Created',
      lastUsed: 'Last used',
      state: 'State',
      action: 'Action',
    },
    never: 'never',
    active: 'active',
    revokedOn: (date) => `revoked on ${date}`,
    revoke: 'Revoke',
    revokeTitle: (name) => `Revoke the key “${name}”?`,
    revokeBody:
      'The API refuses it as soon as you revoke it, on every replica. This cannot be undone; it stays listed for auditing.',
    revokeConfirm: 'Yes, revoke',
    cancel: 'Cancel',
    revoked: (name) => `You revoked the key “${name}”.`,
    createdTitle: 'Your new key',
    createdWarning: 'Copy it now and keep it somewhere safe: we will never show it again.',
    secretLabel: 'Secret key',
    copy: 'Copy',
    done: 'I have saved it',
    duplicate:
      'That form was sent already: the key is in the list. If you did not copy its secret, revoke it and create another.',
    liveNeedsActive: 'Live keys open once we approve the account. Meanwhile, use test keys.',
    rollTitle: 'Or roll it',
    rollBody:
      'Creates a new key with the same name, mode and permissions, and revokes this one when you choose: you switch keys on your server without an outage.',
    rollDelay: 'Revoke this one',
    delays: { '0': 'now', '3600': 'in 1 hour', '86400': 'in 24 hours', '604800': 'in 7 days' },
    roll: 'Roll the key',
    revokesOn: (date) => `revoked on ${date}`,
    rolledNow: 'The previous key is revoked.',
    rolledLater: (date) => `The previous key keeps working until ${date}.`,
    rollConflict: 'That key is revoked or being rolled already.',
  },
  projects: {
    title: 'Projects',
    lead: 'Each project has one flow. You edit it as a draft and publish it to test or live; each publication is frozen as a version.',
    none: 'No projects yet.',
    name: 'Project name',
    create: 'Create project',
    rename: 'Rename',
    pointers: 'Published',
    unpublished: 'not published',
    draftTitle: 'Flow draft (JSON)',
    draftHint: 'Consent always comes first. Checked by the same schema as publication.',
    save: 'Save draft',
    saved: 'Draft saved.',
    valid: 'The draft is valid.',
    problems: 'The draft has problems; it was saved anyway, but cannot be published like this:',
    publishTo: { test: 'Publish to test', live: 'Publish to live' },
    previewTitle: (mode) => `Publish to ${mode}`,
    previewLead: (current) =>
      current
        ? `Changes against ${current}, this mode's current version:`
        : 'This mode has no published version yet. This will be published:',
    noChanges: 'No changes against the current version.',
    confirm: 'Confirm and publish',
    cancel: 'Back',
    published: (version, mode) => `You published ${version} to ${mode}.`,
    stale: 'Someone published to this mode while you were reviewing. Review the changes again.',
    liveNeedsActive: 'Live mode opens once we approve the account.',
    history: 'Version history',
    columns: { version: 'Version', mode: 'Mode', created: 'Published', by: 'By', pointers: 'In use', actions: 'Actions' },
    compare: 'Compare with the previous one',
    restoreTo: { test: 'Back to this one in test', live: 'Back to this one in live' },
    diffTitle: (from, to) => `Differences from ${from} to ${to}`,
    duplicate: 'That form was sent already: the project is in the list.',
    tries: {
      start: 'Try the draft',
      title: 'Draft try',
      lead: 'This try goes through the draft as saved, without publishing it: it debits no token, does not show in the API and sends no webhook. The link works once and for one hour.',
      openHere: 'Open the flow on this screen',
      scan: 'Or scan the code with a phone:',
      status: 'Status',
      statuses: {
        pending: 'not opened',
        in_progress: 'in progress',
        approved: 'approved',
        rejected: 'rejected',
        expired: 'expired',
        abandoned: 'abandoned',
        canceled: 'canceled',
      },
      linkGone: 'The link was opened already or expired. For another try, go back to the editor.',
      refresh: 'Refresh the status',
      backToEditor: 'Back to the editor',
      reasons: 'Reasons',
      step: 'Step',
      verdict: 'Result',
      verdicts: { approved: 'approved', rejected: 'rejected', skipped: 'skipped', not_reached: 'not reached' },
      tooMany: 'You made many tries in the last hour. Wait a while, or publish to test and use a test key.',
      suspended: 'The account is suspended: tries are not possible.',
      duplicate: 'That button was pressed already: the try opened with the first press.',
    },
  },
  balance: {
    title: 'Tokens',
    lead: 'Each live-mode session uses one token; test sessions and tries of drafts use none. Tokens are credited by the service’s team.',
    current: 'Balance',
    tokens: TOKEN_COUNT.en,
    daysLeft: (days) =>
      days === 0
        ? 'At the last 7 days’ pace they do not last another day.'
        : `At the last 7 days’ pace they last about ${numberOf('en', days)} days.`,
    noPace: 'None were used in the last 7 days: there is no pace to estimate how long they last.',
    spent: 'No tokens left: live-mode sessions are refused (402) until more are credited.',
    ledgerTitle: 'Movements',
    columns: { at: 'When', movement: 'Movement', tokens: 'Tokens', detail: 'Detail' },
    credit: 'Credit',
    debit: 'Session',
    noEntries: 'No movements yet.',
    older: 'Show older',
    newest: 'Back to the newest',
  },
  audit: {
    title: 'Audit log',
    lead: 'Everything each person of this account did, and the service’s operator: what, when and from which address. It cannot be changed or deleted.',
    filters: 'Filter',
    group: 'Kind of action',
    allGroups: 'All',
    groups: {
      sign_in: 'Sign-ins and security',
      keys: 'API keys',
      flows: 'Projects and flows',
      sessions: 'Sessions and personal data',
      webhooks: 'Webhooks',
      members: 'Team',
      account: 'Account',
    },
    actor: 'Who',
    allActors: 'Anyone',
    operator: 'The service’s operator',
    nobody: '—',
    from: 'From (day)',
    to: 'To (day)',
    apply: 'Filter',
    clear: 'Show all',
    columns: { at: 'When', actor: 'Who', action: 'What', target: 'On', address: 'Address' },
    empty: 'No actions with these filters.',
    older: 'Show older',
    newest: 'Back to the newest',
    export: 'Download CSV (with these filters)',
    invalid: {
      group: 'We do not know that kind of action: showing all.',
      actor: 'That person is not valid: showing anyone’s.',
      from: 'The “from” date must be a day (YYYY-MM-DD): not used.',
      to: 'The “to” date must be a day (YYYY-MM-DD): not used.',
      before: 'The page link is not valid: showing the newest.',
    },
    actions: {
      'member.role_changed': "Changed a member's role",
      'session.data_shown': "Showed a session's personal data",
      'session.images_shown': "Showed a session's images",
      'session.evidence_downloaded': "Downloaded a session's evidence",
      'session.canceled': 'Canceled a session',
      'account.signed_up': 'Created the account',
      'account.created': 'Created the organisation',
      'account.approved': 'Approved the account',
      'account.suspended': 'Suspended the account',
      'account.credited': 'Credited tokens',
      'account.owner_added_by_operator': 'Added an owner',
      'account.totp_required': 'Required two-factor of the whole team',
      'account.totp_optional': 'Made two-factor optional',
      'api_key.created': 'Created an API key',
      'webhook_endpoint.created': 'Created a webhook endpoint',
      'webhook_endpoint.updated': 'Edited a webhook endpoint',
      'webhook_endpoint.disabled': 'Disabled a webhook endpoint',
      'webhook_endpoint.enabled': 'Enabled a webhook endpoint',
      'webhook_endpoint.deleted': 'Deleted a webhook endpoint',
      'webhook_endpoint.secret_rotated': 'Rotated a webhook endpoint’s secret',
      'webhook_endpoint.test_sent': 'Sent a test event',
      'webhook_delivery.redelivered': 'Redelivered an event',
      'webhook_endpoint.retry_started': 'Retried an endpoint’s failed deliveries',
      'api_key.revoked': 'Revoked an API key',
      'api_key.rolled': 'Rolled an API key',
      'audit.exported': 'Downloaded the audit log',
      ...NOTICES_MESSAGES.en.auditActions,
      ...SESSION_IMAGES_MESSAGES.en.auditActions,
      'usage.exported': 'Downloaded a month’s usage (CSV)',
      'config.published_test': 'Published a flow to test',
      'config.published_live': 'Published a flow to live',
      'config.tried': 'Tried a draft',
      'member.invited': 'Invited someone',
      'member.joined': 'Joined the team',
      'member.removed': 'Removed someone from the team',
      'project.created': 'Created a project',
      'project.renamed': 'Renamed a project',
      'user.access_links_sent': 'Asked for a sign-in link',
      'user.email_confirmed': 'Confirmed their e-mail',
      'user.password_accepted': 'Gave their password (code pending)',
      'user.password_reset': 'Changed their password',
      'user.second_factor_failed': 'Gave a wrong code',
      'user.sign_in_failed': 'Failed to sign in',
      'user.signed_in': 'Signed in',
      'user.signed_in_with_link': 'Signed in with a link',
      'user.signed_in_with_recovery_code': 'Signed in with a recovery code',
      'user.signed_out': 'Signed out',
      'user.signed_out_everywhere': 'Signed out everywhere',
      'user.switched_account': 'Switched to this organisation',
      'user.totp_enrolled': 'Turned on two-factor',
    },
  },
  organisations: {
    title: 'Your organisations',
    status: { pending: 'pending approval', active: 'active', suspended: 'suspended' },
    lead: 'You can belong to more than one organisation; each has its own projects, keys and team. You work in one at a time.',
    current: 'the one you are working in',
    switchTo: 'Work in this one',
    createTitle: 'Another organisation',
    createLead: 'It is created pending approval, with you as its owner, and you start working in it.',
    create: 'Create organisation',
    duplicate: 'That form was already sent: the organisation is in the list.',
  },
  operator: {
    console: 'Operator console',
    signInTitle: 'Operator sign-in',
    enrolTitle: 'Set up your second factor',
    enrolBody:
      'Scan this code with your authenticator app (Google Authenticator, 1Password, Aegis…) and enter the 6-digit code it shows.',
    enrolManual: 'If you cannot scan it, enter this key by hand:',
    verifyTitle: 'Verification code',
    verifyBody: 'Enter the 6-digit code of your authenticator app, or one of your recovery codes.',
    code: 'Code',
    codeHint: '6 digits, or a recovery code',
    confirm: 'Confirm',
    wrongCode: 'The code is not right or was used already. Wait for the next one and try again.',
    recoveryTitle: 'Your recovery codes',
    recoveryBody: 'Keep them off this device. Each works once if you lose your phone. We will not show them again.',
    continue: 'I have saved them',
    tabs: { pending: 'Pending', active: 'Active', suspended: 'Suspended' },
    none: 'No accounts in this state.',
    columns: { name: 'Organisation', email: 'E-mail', created: 'Created', waiting: 'Age' },
    age: (hours) => (hours < 48 ? `${hours} h` : `${Math.floor(hours / 24)} days`),
    accountTitle: (name) => `Account: ${name}`,
    status: 'State',
    owners: 'Owners',
    balance: 'Token balance',
    keys: 'Keys (secrets are never shown)',
    noKeys: 'No keys.',
    projects: 'Projects',
    noProjects: 'No projects.',
    pointer: (mode, version) => `${mode}: ${version ?? 'unpublished'}`,
    usageTitle: (month) => `Usage in ${month}`,
    usageMode: 'Mode',
    usageSessions: 'Sessions by status',
    tokensDebited: (tokens) => `Tokens debited this month: ${tokens}.`,
    reason: 'Reason',
    reasonHint: "We tell the account's owners by e-mail and keep it in the audit log.",
    approve: 'Approve',
    suspend: 'Suspend',
    decided: { approve: 'Account approved; its owners were told.', suspend: 'Account suspended; its owners were told.' },
    credit: 'Credit tokens',
    tokens: 'Tokens',
    credited: (balance) => `Tokens credited. Balance: ${balance}.`,
    duplicate: 'That form was sent already; nothing was repeated.',
  },
  mail: {
    confirmSubject: 'Confirm your e-mail',
    confirmText: (name, link, hours) =>
      `Hello ${name},\n\nTo confirm your e-mail, open this link:\n\n${link}\n\nIt expires in ${hours} hours and works once. If you did not create an account, ignore this message.\n`,
    inviteSubject: (account) => `You were invited to ${account}`,
    inviteText: (account, role, link, days) =>
      `Hello,\n\nYou were invited to ${account}'s account in the identity verification dashboard, with the role ${role}.\n\nTo accept, open this link (it expires in ${days} days and works once):\n\n${link}\n\nIf you did not expect this invitation, ignore this message.\n`,
    accessSubject: 'Get into your account',
    accessText: (name, signInLink, resetLink) =>
      `Hello ${name},\n\nYou asked to get into your account. To sign in without your password, open this link (it expires in 15 minutes):\n\n${signInLink}\n\nTo choose a new password, open this one (it expires in 30 minutes; it ends your other sign-ins):\n\n${resetLink}\n\nEach link works once. If you did not ask, ignore this message: your password did not change.\n`,
    decisionSubject: (status) =>
      status === 'active'
        ? 'Your account was approved'
        : status === 'suspended'
          ? 'Your account was suspended'
          : 'Your account changed state',
    decisionText: (name, status, reason) =>
      status === 'active'
        ? `Hello ${name},\n\nWe approved your account: you can now create live keys and publish live flows.\n\nA note from the team: ${reason}\n`
        : `Hello ${name},\n\nWe suspended your account: the API refuses its keys meanwhile.\n\nReason: ${reason}\n\nReply to this e-mail to talk to the team.\n`,
  },
};

export const MESSAGES: Record<Locale, Messages> = { es, en };
