/**
 * Everything the person reads, in Spanish (es-AR, the default) and English. Pages pick the locale from
 * Accept-Language once per request; nothing else in the service holds user-facing text.
 */
export type Locale = 'es' | 'en';

const es = {
  htmlLang: 'es-AR',
  serviceName: 'Verificación de identidad',
  testBanner: 'Modo de prueba: no se envía ningún mensaje y el código 000000 es válido.',
  stepOf: (n: number, total: number) => `Paso ${n} de ${total}`,
  continue: 'Continuar',
  // consent
  consentTitle: 'Antes de empezar',
  consentBody:
    'Para verificar tu identidad vamos a pedirte algunos datos. Los usamos solo para esta verificación y los compartimos únicamente con quien te la solicitó.',
  consentAccept: 'Acepto y quiero continuar',
  consentDecline: 'No acepto',
  // form
  formTitle: 'Completá tus datos',
  required: '(obligatorio)',
  optional: '(opcional)',
  selectPlaceholder: 'Elegí una opción',
  fixErrors: 'Revisá los campos marcados.',
  errRequired: 'Este campo es obligatorio.',
  errTooShort: (n: number) => `Ingresá al menos ${n} caracteres.`,
  errTooLong: (n: number) => `Ingresá como máximo ${n} caracteres.`,
  errCharacters: 'El texto tiene caracteres que no podemos guardar (quizás se pegaron símbolos invisibles). Escribilo de nuevo.',
  errOption: 'Elegí una de las opciones.',
  errDate: 'Ingresá una fecha válida (AAAA-MM-DD).',
  errDateMin: (d: string) => `La fecha no puede ser anterior a ${d}.`,
  errDateMax: (d: string) => `La fecha no puede ser posterior a ${d}.`,
  errNumber: 'Ingresá un número.',
  errInteger: 'Ingresá un número entero.',
  errMin: (n: number) => `El valor mínimo es ${n}.`,
  errMax: (n: number) => `El valor máximo es ${n}.`,
  errCheckbox: 'Tenés que marcar esta casilla para continuar.',
  // choice
  choiceTitle: 'Elegí cómo continuar',
  choiceIntro: (min: number) => (min === 1 ? 'Completá una de estas opciones.' : `Completá ${min} de estas opciones.`),
  choicePassed: 'Completada',
  choiceFailed: 'No se pudo completar',
  choiceOptionFailed: 'Esa opción no se pudo completar. Elegí otra.',
  chooseOther: 'Elegir otra opción',
  optionLabel: (type: string) =>
    ({
      otp_email: 'Verificar mi correo electrónico',
      otp_whatsapp: 'Verificar mi celular por WhatsApp',
      form: 'Completar un formulario',
      document_ar: 'Fotografiar mi documento',
      face_liveness: 'Verificar mi rostro',
    })[type] ?? type,
  // otp
  emailTitle: 'Verificá tu correo electrónico',
  emailLabel: 'Correo electrónico',
  emailHint: 'Te vamos a enviar un código de 6 dígitos.',
  errEmail: 'Ingresá un correo electrónico válido, por ejemplo nombre@dominio.com.',
  phoneTitle: 'Verificá tu celular',
  phoneLabel: 'Número de celular',
  phoneHint: 'Con código de área, por ejemplo 11 2345-6789. Te vamos a enviar un código de 6 dígitos por WhatsApp.',
  errPhone: 'Ingresá un celular argentino válido con código de área, por ejemplo 11 2345-6789.',
  sendCode: 'Enviar código',
  codeSentTo: (to: string) => `Enviamos un código de 6 dígitos a ${to}.`,
  codeLabel: 'Código de 6 dígitos',
  verifyCode: 'Verificar',
  resendCode: 'Reenviar código',
  changeDestination: 'Usar otro dato',
  errCodeFormat: 'El código tiene 6 dígitos.',
  errCodeWrong: (left: number) =>
    left === 1 ? 'El código no es correcto. Te queda 1 intento.' : `El código no es correcto. Te quedan ${left} intentos.`,
  errCodeExpired: 'El código venció. Pedí uno nuevo.',
  errNoCode: 'Primero pedí un código.',
  errCooldown: (s: number) => `Esperá ${s} segundos antes de pedir otro código.`,
  errNoResends: 'Ya no se pueden enviar más códigos.',
  errSendFailed: 'No pudimos enviar el código. Intentá de nuevo en unos momentos.',
  codeResent: 'Te enviamos un código nuevo.',
  // unavailable
  unavailableTitle: 'Paso no disponible',
  unavailableBody:
    'Este paso de la verificación todavía no está disponible en este servicio. No podemos completar tu verificación por este medio.',
  // final and status pages
  doneTitle: '¡Listo!',
  doneBody: 'Terminaste la verificación. Ya podés cerrar esta pestaña.',
  failedTitle: 'No pudimos verificarte',
  failedBody:
    'No pudimos completar la verificación de tu identidad. Ya podés cerrar esta pestaña y comunicarte con quien te la solicitó.',
  usedTitle: 'Este enlace ya se usó',
  usedBody:
    'El enlace se abrió en otro navegador o dispositivo. Por seguridad, la verificación solo puede continuar donde se abrió por primera vez. Si no fuiste vos, avisá a quien te envió el enlace.',
  expiredTitle: 'El enlace venció',
  expiredBody: 'Este enlace de verificación ya no es válido. Pedí uno nuevo a quien te lo envió.',
  abandonedTitle: 'La verificación venció',
  abandonedBody: 'Pasó demasiado tiempo sin actividad y la verificación se cerró. Pedí un enlace nuevo a quien te lo envió.',
  canceledTitle: 'La verificación fue cancelada',
  canceledBody: 'Quien te envió el enlace canceló esta verificación. Si necesitás verificarte, pedile un enlace nuevo.',
  finishedTitle: 'La verificación ya terminó',
  finishedBody: 'Esta verificación ya se completó o se canceló. Si necesitás verificarte de nuevo, pedí un enlace nuevo.',
  throttledTitle: 'Demasiados intentos',
  throttledBody: 'Se abrieron muchos enlaces desde esta conexión en poco tiempo. Esperá un minuto y volvé a abrir tu enlace.',
  notFoundTitle: 'Enlace no válido',
  notFoundBody: 'No encontramos esta verificación. Revisá que el enlace esté completo.',
  errorTitle: 'Algo salió mal',
  errorBody: 'No pudimos procesar tu pedido. Intentá de nuevo en unos momentos.',
  tryAgain: 'Volver a intentar',
  csrfTitle: 'La página se desactualizó',
  csrfBody: 'Por seguridad no pudimos aceptar ese envío. Volvé a la verificación e intentá de nuevo.',
  backToFlow: 'Volver a la verificación',
};

export type Messages = typeof es;

const en: Messages = {
  htmlLang: 'en',
  serviceName: 'Identity verification',
  testBanner: 'Test mode: no message is sent and the code 000000 is accepted.',
  stepOf: (n, total) => `Step ${n} of ${total}`,
  continue: 'Continue',
  consentTitle: 'Before you start',
  consentBody:
    'To verify your identity we will ask you for some information. We use it only for this verification and share it only with whoever asked you to verify.',
  consentAccept: 'I agree and want to continue',
  consentDecline: 'I do not agree',
  formTitle: 'Fill in your details',
  required: '(required)',
  optional: '(optional)',
  selectPlaceholder: 'Choose an option',
  fixErrors: 'Please check the highlighted fields.',
  errRequired: 'This field is required.',
  errTooShort: (n) => `Enter at least ${n} characters.`,
  errTooLong: (n) => `Enter at most ${n} characters.`,
  errCharacters: 'The text has characters we cannot keep (perhaps invisible symbols were pasted). Please type it again.',
  errOption: 'Choose one of the options.',
  errDate: 'Enter a valid date (YYYY-MM-DD).',
  errDateMin: (d) => `The date cannot be before ${d}.`,
  errDateMax: (d) => `The date cannot be after ${d}.`,
  errNumber: 'Enter a number.',
  errInteger: 'Enter a whole number.',
  errMin: (n) => `The minimum is ${n}.`,
  errMax: (n) => `The maximum is ${n}.`,
  errCheckbox: 'You must tick this box to continue.',
  choiceTitle: 'Choose how to continue',
  choiceIntro: (min) => (min === 1 ? 'Complete one of these options.' : `Complete ${min} of these options.`),
  choicePassed: 'Completed',
  choiceFailed: 'Could not be completed',
  choiceOptionFailed: 'That option could not be completed. Choose another one.',
  chooseOther: 'Choose another option',
  optionLabel: (type) =>
    ({
      otp_email: 'Verify my e-mail address',
      otp_whatsapp: 'Verify my mobile phone with WhatsApp',
      form: 'Fill in a form',
      document_ar: 'Photograph my ID document',
      face_liveness: 'Verify my face',
    })[type] ?? type,
  emailTitle: 'Verify your e-mail address',
  emailLabel: 'E-mail address',
  emailHint: 'We will send you a 6-digit code.',
  errEmail: 'Enter a valid e-mail address, for example name@domain.com.',
  phoneTitle: 'Verify your mobile phone',
  phoneLabel: 'Mobile number',
  phoneHint: 'With area code, for example 11 2345-6789. We will send you a 6-digit code on WhatsApp.',
  errPhone: 'Enter a valid Argentine mobile number with area code, for example 11 2345-6789.',
  sendCode: 'Send code',
  codeSentTo: (to) => `We sent a 6-digit code to ${to}.`,
  codeLabel: '6-digit code',
  verifyCode: 'Verify',
  resendCode: 'Resend code',
  changeDestination: 'Use a different one',
  errCodeFormat: 'The code has 6 digits.',
  errCodeWrong: (left) =>
    left === 1 ? 'The code is not correct. You have 1 attempt left.' : `The code is not correct. You have ${left} attempts left.`,
  errCodeExpired: 'The code expired. Ask for a new one.',
  errNoCode: 'Ask for a code first.',
  errCooldown: (s) => `Wait ${s} seconds before asking for another code.`,
  errNoResends: 'No more codes can be sent.',
  errSendFailed: 'We could not send the code. Please try again in a moment.',
  codeResent: 'We sent you a new code.',
  unavailableTitle: 'Step not available',
  unavailableBody: 'This verification step is not available in this service yet. We cannot complete your verification here.',
  doneTitle: 'All done!',
  doneBody: 'You finished the verification. You can close this tab now.',
  failedTitle: 'We could not verify you',
  failedBody:
    'We could not complete the verification of your identity. You can close this tab and contact whoever asked you to verify.',
  usedTitle: 'This link was already used',
  usedBody:
    'The link was opened in another browser or device. For your security the verification can only continue where it was first opened. If it was not you, tell whoever sent you the link.',
  expiredTitle: 'The link expired',
  expiredBody: 'This verification link is no longer valid. Ask whoever sent it for a new one.',
  abandonedTitle: 'The verification expired',
  abandonedBody:
    'Too much time passed without activity and the verification was closed. Ask whoever sent the link for a new one.',
  canceledTitle: 'The verification was canceled',
  canceledBody: 'Whoever sent you the link canceled this verification. If you need to verify, ask them for a new link.',
  finishedTitle: 'The verification is over',
  finishedBody: 'This verification was already completed or canceled. If you need to verify again, ask for a new link.',
  throttledTitle: 'Too many attempts',
  throttledBody: 'Many links were opened from this connection in a short time. Wait a minute and open your link again.',
  notFoundTitle: 'Invalid link',
  notFoundBody: 'We could not find this verification. Check that the link is complete.',
  errorTitle: 'Something went wrong',
  errorBody: 'We could not process your request. Please try again in a moment.',
  tryAgain: 'Try again',
  csrfTitle: 'The page was out of date',
  csrfBody: 'For your security we could not accept that submission. Go back to the verification and try again.',
  backToFlow: 'Back to the verification',
};

const CATALOG: Record<Locale, Messages> = { es, en };

export function messages(locale: Locale): Messages {
  return CATALOG[locale];
}

/**
 * Spanish unless the browser prefers English: the first language of Accept-Language (by q) that is
 * `es*` or `en*` wins; anything else falls back to Spanish.
 */
export function pickLocale(acceptLanguage: string | undefined): Locale {
  if (!acceptLanguage) return 'es';
  const ranked = acceptLanguage
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const quality = q ? Number(q.slice(2)) : 1;
      return { tag: tag.toLowerCase(), quality: Number.isFinite(quality) ? quality : 0, index };
    })
    .filter((entry) => entry.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.index - b.index);
  for (const { tag } of ranked) {
    if (tag === 'es' || tag.startsWith('es-')) return 'es';
    if (tag === 'en' || tag.startsWith('en-')) return 'en';
  }
  return 'es';
}
