import type { ReasonCode } from './reason-codes';
/**
 * Everything the person reads, in Spanish (es-AR, the default) and English. Pages pick the locale from
 * Accept-Language once per request; nothing else in the service holds user-facing text.
 */
export type Locale = 'es' | 'en';

const es = {
  htmlLang: 'es-AR',
  serviceName: 'Verificación de identidad',
  testBanner: 'Modo de prueba: esta verificación no es real y no se envía ningún mensaje.',
  tryBanner: 'Prueba del borrador: el resultado se ve solo en el panel, sin webhooks ni cargo.',
  testBannerCode: 'Modo de prueba: esta verificación no es real, no se envía ningún mensaje y el código 000000 es válido.',
  stepOf: (n: number, total: number) => `Paso ${n} de ${total}`,
  photoOf: (n: number, total: number) => `foto ${n} de ${total}`,
  continue: 'Continuar',
  // consent
  consentTitle: 'Antes de empezar',
  consentIntro: 'Para verificar tu identidad vamos a pedirte:',
  consentCollects: {
    document: 'Fotos de tu documento (de frente, del dorso si tiene y una inclinada) y los datos que tiene impresos.',
    registry: 'La consulta de esos datos en el Registro Nacional de las Personas (RENAPER).',
    face: 'Fotos de tu cara tomadas con la cámara, como un video corto, para confirmar que estás presente.',
    faceComparison: 'La comparación biométrica de tu cara con la foto de tu documento.',
    email: 'Tu correo electrónico, para mandarte un código.',
    phone: 'Tu número de WhatsApp, para mandarte un código.',
    form: 'Tus respuestas a un formulario.',
  },
  consentPurpose:
    'Usamos estos datos solo para esta verificación y se los damos únicamente a quien te la pidió, con el resultado.',
  consentRetention: (days: number) =>
    `Las fotos y los datos leídos de tu documento se borran de nuestros sistemas a los ${days} días.`,
  consentPrivacy: 'Leé la política de privacidad de quien te pidió la verificación',
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
  // final and status pages
  doneTitle: '¡Listo!',
  doneBody: 'Terminaste la verificación. Ya podés cerrar esta pestaña.',
  // What went wrong, per reason code, in the person's words (never which anti-fraud cue fired), and what to do.
  rejection: {
    whatHappened: 'Qué pasó',
    whatToDo: 'Qué podés hacer',
    reasons: {
      consent_declined: 'No aceptaste que usemos tus datos, así que no pudimos seguir.',
      email_code_attempts_exceeded: 'Se ingresó un código equivocado demasiadas veces para tu correo.',
      email_code_expired: 'El código que te mandamos por correo venció.',
      phone_code_attempts_exceeded: 'Se ingresó un código equivocado demasiadas veces para tu WhatsApp.',
      phone_code_expired: 'El código que te mandamos por WhatsApp venció.',
      choice_not_satisfied: null,
      step_unavailable: 'Uno de los pasos no estaba disponible.',
      document_unreadable: 'No pudimos leer tu documento en las fotos.',
      document_type_mismatch: 'El documento de las fotos no es del tipo que se pedía.',
      document_expired: 'Tu documento está vencido.',
      document_data_mismatch: 'Los datos de tu documento no coinciden entre sí.',
      document_mrz_invalid: 'No pudimos validar los datos de tu documento.',
      document_cuil_invalid: 'No pudimos validar los datos de tu documento.',
      document_screen_detected:
        'Las fotos no parecen tomadas de tu documento físico (por ejemplo, de una pantalla o de una copia).',
      document_angle_mismatch: 'La foto inclinada no mostraba el mismo documento que las otras.',
      document_registry_mismatch: 'Los datos de tu documento no coinciden con el registro nacional.',
      document_registry_unavailable: 'No pudimos consultar el registro nacional a tiempo.',
      face_not_found: 'No pudimos ver tu cara en la cámara.',
      face_multiple: 'Había más de una cara frente a la cámara.',
      liveness_challenge_failed: 'No pudimos ver los movimientos que te pedimos.',
      liveness_spoof_detected: 'No pudimos confirmar que eras vos, en persona, frente a la cámara.',
      face_mismatch: 'Tu cara no coincide con la foto de tu documento.',
      face_document_photo_missing: 'No pudimos ver bien la foto de tu documento para compararla con tu cara.',
      test_sample_detected:
        'No pudimos usar las fotos que mandaste: tienen que ser de tu documento y de tu cara, sacadas en el momento.',
    },
    advice: {
      consent_declined: 'Si cambiaste de idea, pedile a quien te mandó el enlace uno nuevo.',
      document_expired: 'Si tenés un documento vigente, pedile a quien te mandó el enlace uno nuevo y usalo.',
      document_registry_unavailable:
        'No es por algo que hiciste: pedile a quien te mandó el enlace uno nuevo e intentá más tarde.',
      step_unavailable: 'No es por algo que hiciste: comunicate con quien te pidió la verificación.',
    } as Partial<Record<ReasonCode, string>>,
    adviceDefault:
      'Pedile a quien te mandó el enlace uno nuevo e intentá otra vez con tu documento físico a mano, con buena luz y solo frente a la cámara.',
  } satisfies { reasons: Record<ReasonCode, string | null> } & Record<string, unknown>,
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
  // why the camera could not be used, as the browser said it (the camera scripts show these)
  cameraAccess: {
    denied:
      'No nos diste permiso para usar la cámara. Para darlo, tocá el candado o el ícono de la cámara junto a la dirección de la página, permití la cámara y recargá la página.',
    missing: 'No encontramos una cámara en este dispositivo.',
    busy: 'Otra aplicación está usando la cámara. Cerrala y recargá la página.',
    unsupported: 'Este navegador no nos deja usar la cámara.',
    failed: 'No pudimos usar la cámara.',
  },
  // an upload that could not be received (services/flow-runner/src/http/multipart.ts)
  upload: {
    incomplete: 'La foto no llegó completa: se cortó la conexión mientras se enviaba. Volvé a intentar.',
    tooSlow: 'La foto tardaba demasiado en llegar. Buscá una conexión más estable (o wifi) y volvé a intentar.',
    busy: 'Estamos recibiendo muchas fotos en este momento. Esperá unos segundos y volvé a intentar.',
  },
  // continuing on another device (hand-over)
  movedTitle: 'Seguís en otro dispositivo',
  movedBody:
    'Pasaste la verificación a otro dispositivo y sigue allá. Ya podés cerrar esta pestaña. Si no fuiste vos, avisá a quien te envió el enlace.',
  handoverInvalidTitle: 'Este código ya no sirve',
  handoverInvalidBody:
    'El código QR venció o ya se usó. Volvé al otro dispositivo, recargá la página y escaneá de nuevo el código que aparece.',
  handover: {
    title: '¿No tenés cámara acá? Seguí en tu celular',
    intro:
      'Escaneá este código con la cámara de tu celular para seguir la verificación ahí. Después, esta pestaña ya no la muestra.',
    qrLabel: 'Código QR para seguir la verificación en el celular',
    link: 'O abrí este enlace en el celular:',
    validity: (minutes: number) =>
      `Sirve una sola vez y vence en ${minutes === 1 ? '1 minuto' : `${minutes} minutos`}. No lo compartas: quien lo abra sigue la verificación en tu lugar.`,
  },
  document: {
    title: 'Tu documento',
    chooseType: '¿Qué documento vas a usar?',
    typeNames: { dni: 'DNI (tarjeta)', passport: 'Pasaporte', licence: 'Licencia de conducir' },
    continue: 'Continuar',
    sideTitles: {
      front: 'Frente del documento',
      back: 'Dorso del documento',
      front_angle: 'Frente, inclinado',
      data_page: 'Página de datos del pasaporte',
    },
    sideHints: {
      front: 'Apoyá el documento sobre una mesa, con buena luz, y sacale una foto al frente completo.',
      back: 'Dalo vuelta y sacale una foto al dorso completo.',
      front_angle: 'Ahora sacale otra foto al frente, con el documento un poco inclinado (como si lo miraras de costado).',
      data_page: 'Abrí el pasaporte en la página de la foto y sacale una foto completa, con las dos líneas de abajo.',
    },
    fileLabel: 'Foto',
    fileHint: 'JPEG, PNG o WebP, hasta 10 MB.',
    upload: 'Enviar foto',
    attemptsLeft: (n: number) => (n === 1 ? 'Te queda 1 intento para esta foto.' : `Te quedan ${n} intentos para esta foto.`),
    processingTitle: 'Estamos revisando la foto',
    processingBody: 'Esto tarda unos segundos. La página se actualiza sola.',
    refresh: 'Actualizar',
    registryTitle: 'Estamos consultando el registro nacional',
    registryBody:
      'Tu documento pasó nuestros controles y lo estamos confirmando con el registro nacional de las personas. Puede tardar: tu verificación sigue en curso mientras tanto y esta página se actualiza sola. Si la cerrás, volvé a abrirla desde el mismo enlace.',
    problems: {
      blurry: 'La foto está movida. Apoyá el documento, sostené firme el teléfono y volvé a sacarla.',
      glare: 'Hay un reflejo sobre los datos. Cambiá el ángulo o alejate de la luz directa.',
      too_dark: 'La foto está muy oscura. Buscá un lugar con más luz.',
      barcode_not_found: 'No se ve el código de barras. Que entre el documento completo en la foto, sin tapar nada.',
      mrz_not_found: 'No se leen las líneas de abajo del documento. Que se vean completas y nítidas.',
      no_document: 'No encontramos un documento en la foto. Que el documento ocupe casi toda la imagen.',
      other_side: 'Esa es la otra cara del documento. Mandá la que te pedimos.',
      wrong_type: 'Ese no es el documento que elegiste. Mandá una foto del documento elegido.',
      screen: 'Parece una foto de una pantalla o de una copia impresa. Sacale la foto al documento original.',
      unreadable_image: 'No pudimos abrir esa imagen. Probá con otra foto.',
      print_unreadable:
        'No se leen bien los datos impresos. Sacá otra foto de frente, con buena luz, sin reflejos y con el documento entero y enfocado.',
    },
    refusals: {
      empty: 'El archivo está vacío. Elegí una foto.',
      unsupported_type: 'Ese archivo no es una foto que podamos leer. Mandá una imagen JPEG, PNG o WebP.',
      heic: 'Esa foto está en formato HEIC (iPhone). En Ajustes > Cámara > Formatos elegí "Más compatible", o sacá la foto desde esta página, y volvé a enviarla.',
      corrupt: 'La imagen está dañada o incompleta. Volvé a sacar la foto.',
      too_large: 'La foto pesa más de 10 MB. Mandá una más liviana.',
      too_many_pixels: 'La imagen es demasiado grande. Mandá una foto común del teléfono.',
      missing: 'Elegí una foto para enviar.',
    },
    camera: {
      shoot: 'Sacar foto',
      start: 'Encuadrá el documento dentro del recuadro.',
      focus: 'Enfocando… sostené firme el teléfono.',
      dark: 'Hay poca luz: buscá un lugar más iluminado.',
      glare: 'Evitá reflejos: cambiá un poco el ángulo.',
      ready: 'Bien, sacá la foto.',
      uploading: 'Enviando la foto…',
      uploadFailed: 'No se pudo enviar. Revisá la conexión y volvé a intentar.',
      review: 'Revisá que el documento se vea entero, nítido y sin reflejos.',
      holding: 'Sostené quieto el teléfono: sacamos la foto cuando se vea nítida.',
      reviewBlurred:
        'La foto salió movida y puede no leerse: sacá otra sosteniendo quieto el teléfono, o enviala si los datos se leen bien.',
      shotLabel: 'La foto que sacaste',
      send: 'Enviar foto',
      retake: 'Sacar otra',
      useFile: 'Subir una foto en su lugar',
      wayOn: 'Podés elegir una foto o sacarla con la cámara del teléfono con el botón de abajo.',
    },
    samplesTitle: 'Documentos de prueba (solo en modo de prueba)',
    samplesHint: 'Pasan por la misma lectura que una foto real.',
    useSample: 'Usar',
  },
  face: {
    title: 'Verificá tu rostro',
    intro: 'Vamos a usar la cámara de adelante para comprobar que sos vos y que estás presente.',
    introHints: [
      'Buscá un lugar con buena luz, sin nadie más en cuadro.',
      'Sacate los anteojos de sol, el barbijo o la gorra.',
      'Vamos a pedirte que mires de frente y que gires la cabeza, en el orden que te indiquemos.',
    ],
    startCamera: 'Empezar con la cámara',
    uploadOffer: '¿No podés usar la cámara en este navegador? Podés mandar dos fotos sacadas con el teléfono.',
    startUpload: 'Mandar dos fotos',
    challengeTitle: 'Seguí las indicaciones',
    challengeIntro: 'Ubicá tu cara dentro del óvalo y hacé estos movimientos, en este orden, quedándote un momento en cada uno:',
    poses: {
      straight: 'Mirá de frente a la cámara',
      left: 'Girá la cabeza hacia tu izquierda',
      right: 'Girá la cabeza hacia tu derecha',
    },
    /** What the camera script says while the challenge runs (the page carries them: no text in the script). */
    camera: {
      videoLabel: 'Vista de tu cámara frontal',
      ready: 'Ubicá tu cara dentro del óvalo.',
      closer: 'Acercate un poco más.',
      center: 'Centrá tu cara en el óvalo.',
      several: 'Hay más de una cara: quedate solo o sola frente a la cámara.',
      light: 'Falta luz: buscá un lugar más iluminado.',
      turnMore: 'Girá un poco más.',
      hold: 'Bien, quedate así un momento.',
      done: 'Listo.',
      uploading: 'Enviando las fotos…',
      uploadFailed: 'No se pudieron enviar las fotos. Revisá la conexión y volvé a intentar.',
      restart: 'Empezar de nuevo',
    },
    /** Without JavaScript (the camera needs it): what to do instead. */
    needsCamera: (upload: boolean): string =>
      upload
        ? 'Este paso usa la cámara, y para eso el navegador necesita JavaScript, que acá está desactivado. Podés mandar dos fotos con el botón de abajo, seguir en tu celular con el código QR o activar JavaScript y recargar la página.'
        : 'Este paso usa la cámara, y para eso el navegador necesita JavaScript, que acá está desactivado. Seguí en tu celular con el código QR de abajo, o activá JavaScript y recargá la página.',
    /** After the camera could not be used (JavaScript on): the way on. */
    cameraWayOn: (upload: boolean): string =>
      upload
        ? 'También podés mandar dos fotos con el botón de abajo o seguir en tu celular con el código QR.'
        : 'También podés seguir en tu celular con el código QR de abajo.',
    switchToUpload: 'No puedo usar la cámara: mandar dos fotos',
    back: 'Volver',
    uploadTitle: 'Mandá dos fotos tuyas',
    uploadIntro: 'Sacá las dos fotos ahora, con la cámara de adelante, con buena luz y sin nadie más en cuadro.',
    uploadStraight: 'Foto 1: mirando de frente',
    uploadTurned: {
      left: 'Foto 2: con la cabeza girada hacia tu izquierda',
      right: 'Foto 2: con la cabeza girada hacia tu derecha',
    },
    uploadSend: 'Enviar fotos',
    processingTitle: 'Estamos revisando las fotos',
    processingBody: 'Esto tarda unos segundos. La página se actualiza sola.',
    refresh: 'Actualizar',
    attemptsLeft: (n: number) => (n === 1 ? 'Te queda 1 intento.' : `Te quedan ${n} intentos.`),
    reasons: {
      face_not_found:
        'No encontramos tu cara en todas las fotos. Acercate, que tu cara entre completa en el óvalo y que haya buena luz.',
      face_multiple: 'Apareció más de una cara. Asegurate de estar solo o sola frente a la cámara.',
      liveness_challenge_failed:
        'No pudimos ver los movimientos que te pedimos, en ese orden. Hacelos despacio y quedate un momento en cada posición.',
      liveness_spoof_detected: 'Parece una foto, una pantalla o una persona distinta. Hacelo vos, en vivo, frente a la cámara.',
      face_mismatch: 'Tu cara no coincide con la foto del documento. Probá de nuevo, de frente y con buena luz.',
      face_document_photo_missing: 'No pudimos usar la foto de tu documento para compararla con tu cara.',
      retry: 'No pudimos revisar esas fotos. Probá de nuevo.',
      expired:
        'Pasó demasiado tiempo y no pudimos revisar los movimientos. Esto no te descuenta ningún intento: empezá de nuevo y hacelos apenas aparezcan, sin salir de esta página.',
      expired_again:
        'Otra vez pasó demasiado tiempo y no pudimos revisar los movimientos (no te descuenta ningún intento). Si tu conexión es lenta, conectate a una red wifi o seguí en otro dispositivo con el código QR de esta página.',
    },
    refusals: {
      no_frames: 'No recibimos las fotos. Volvé a intentar.',
      too_many_frames: 'Llegaron demasiadas fotos. Volvé a intentar.',
      too_large: 'Alguna de las fotos pesa demasiado. Mandá fotos más livianas.',
      unsupported: 'Alguno de los archivos no es una foto que podamos leer. Mandá imágenes JPEG, PNG o WebP.',
      heic: 'Alguna foto está en formato HEIC (iPhone). En Ajustes > Cámara > Formatos elegí "Más compatible" y volvé a sacarla.',
      too_small: 'Alguna de las fotos es demasiado chica. Sacala con la cámara del teléfono.',
      too_many_pixels: 'Alguna de las imágenes es demasiado grande. Mandá una foto común del teléfono.',
      corrupt: 'Alguna de las imágenes está dañada o incompleta. Volvé a sacarla.',
      times_invalid: 'Las fotos llegaron sin sus horarios. Volvé a intentar.',
      stale_nonce: 'Esas fotos no corresponden a este intento (quizás ya se enviaron). Empezá de nuevo.',
    },
    samplesTitle: 'Secuencias de prueba (solo en modo de prueba)',
    samplesHint: 'Pasan por la misma revisión que las fotos de una cámara, en el orden que pide este intento.',
    useSample: 'Usar',
  },
  // The document step's checks of a side against the chosen type and the front (issue 38).
  documentChecks: {
    problems: {
      not_tilted: 'Esa foto es igual a la del frente. Inclinalo un poco más (como si lo miraras de costado) y sacale otra foto.',
      other_document: 'Ese dorso es de otro documento. Mandá el dorso del mismo documento que fotografiaste de frente.',
      looks_like_dni: 'Esto parece un DNI: ¿querés cambiar a DNI?',
      looks_like_passport: 'Esto parece un pasaporte: ¿querés cambiar a pasaporte?',
      looks_like_licence: 'Esto parece una licencia de conducir: ¿querés cambiar a licencia?',
    },
    switchTo: { dni: 'Cambiar a DNI', passport: 'Cambiar a pasaporte', licence: 'Cambiar a licencia de conducir' },
    another: 'Voy a usar otro documento',
  },
};

export type Messages = typeof es;

const en: Messages = {
  htmlLang: 'en',
  serviceName: 'Identity verification',
  testBanner: 'Test mode: this verification is not real and no message is sent.',
  tryBanner: 'Draft try: the result shows in the dashboard only, with no webhook and no charge.',
  testBannerCode: 'Test mode: this verification is not real, no message is sent and the code 000000 is accepted.',
  stepOf: (n, total) => `Step ${n} of ${total}`,
  photoOf: (n, total) => `photo ${n} of ${total}`,
  continue: 'Continue',
  consentTitle: 'Before you start',
  consentIntro: 'To verify your identity we will ask you for:',
  consentCollects: {
    document: 'Photos of your document (the front, the back if it has one, and one at an angle) and the data printed on it.',
    registry: 'A check of that data with Argentina’s national registry of persons (RENAPER).',
    face: 'Photos of your face taken with the camera, like a short video, to confirm that you are present.',
    faceComparison: 'A biometric comparison of your face with the photo on your document.',
    email: 'Your e-mail address, to send you a code.',
    phone: 'Your WhatsApp number, to send you a code.',
    form: 'Your answers to a form.',
  },
  consentPurpose:
    'We use this data only for this verification and give it, with the result, only to whoever asked you to verify.',
  consentRetention: (days) => `The photos and the data read from your document are deleted from our systems after ${days} days.`,
  consentPrivacy: 'Read the privacy policy of whoever asked you to verify',
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
  doneTitle: 'All done!',
  doneBody: 'You finished the verification. You can close this tab now.',
  rejection: {
    whatHappened: 'What happened',
    whatToDo: 'What you can do',
    reasons: {
      consent_declined: 'You did not agree to the use of your data, so we could not go on.',
      email_code_attempts_exceeded: 'A wrong code was entered too many times for your e-mail.',
      email_code_expired: 'The code we sent to your e-mail expired.',
      phone_code_attempts_exceeded: 'A wrong code was entered too many times for your WhatsApp.',
      phone_code_expired: 'The code we sent to your WhatsApp expired.',
      choice_not_satisfied: null,
      step_unavailable: 'One of the steps was not available.',
      document_unreadable: 'We could not read your document in the photos.',
      document_type_mismatch: 'The document in the photos is not of the type that was asked for.',
      document_expired: 'Your document has expired.',
      document_data_mismatch: 'The data on your document does not match itself.',
      document_mrz_invalid: 'We could not validate the data on your document.',
      document_cuil_invalid: 'We could not validate the data on your document.',
      document_screen_detected:
        'The photos do not look like they were taken of your physical document (for example, of a screen or a copy).',
      document_angle_mismatch: 'The photo at an angle did not show the same document as the others.',
      document_registry_mismatch: 'The data on your document does not match the national registry.',
      document_registry_unavailable: 'We could not check with the national registry in time.',
      face_not_found: 'We could not see your face on the camera.',
      face_multiple: 'There was more than one face in front of the camera.',
      liveness_challenge_failed: 'We could not see the movements we asked you for.',
      liveness_spoof_detected: 'We could not confirm that it was you, in person, in front of the camera.',
      face_mismatch: 'Your face does not match the photo on your document.',
      face_document_photo_missing: 'We could not see the photo on your document well enough to compare it with your face.',
      test_sample_detected:
        'We could not use the photos you sent: they must be of your own document and face, taken at the moment.',
    },
    advice: {
      consent_declined: 'If you changed your mind, ask whoever sent you the link for a new one.',
      document_expired: 'If you have a valid document, ask whoever sent you the link for a new one and use it.',
      document_registry_unavailable: 'It is not something you did: ask whoever sent you the link for a new one and try later.',
      step_unavailable: 'It is not something you did: contact whoever asked you to verify.',
    },
    adviceDefault:
      'Ask whoever sent you the link for a new one and try again with your physical document at hand, in good light and alone in front of the camera.',
  },
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
  cameraAccess: {
    denied:
      'You did not allow the use of the camera. To allow it, tap the padlock or the camera icon next to the page address, allow the camera and reload the page.',
    missing: 'We could not find a camera on this device.',
    busy: 'Another app is using the camera. Close it and reload the page.',
    unsupported: 'This browser does not let us use the camera.',
    failed: 'We could not use the camera.',
  },
  upload: {
    incomplete: 'The photo did not arrive whole: the connection dropped while it was being sent. Please try again.',
    tooSlow: 'The photo was taking too long to arrive. Find a steadier connection (or Wi-Fi) and try again.',
    busy: 'We are receiving many photos right now. Wait a few seconds and try again.',
  },
  // continuing on another device (hand-over)
  movedTitle: 'You are continuing on another device',
  movedBody:
    'You moved the verification to another device and it continues there. You can close this tab now. If it was not you, tell whoever sent you the link.',
  handoverInvalidTitle: 'This code no longer works',
  handoverInvalidBody:
    'The QR code expired or was already used. Go back to the other device, reload the page and scan the code it shows.',
  handover: {
    title: 'No camera here? Continue on your phone',
    intro: 'Scan this code with your phone camera to continue the verification there. This tab will no longer show it.',
    qrLabel: 'QR code to continue the verification on your phone',
    link: 'Or open this link on your phone:',
    validity: (minutes: number) =>
      `It works once and expires in ${minutes === 1 ? '1 minute' : `${minutes} minutes`}. Do not share it: whoever opens it continues the verification instead of you.`,
  },
  document: {
    title: 'Your document',
    chooseType: 'Which document will you use?',
    typeNames: { dni: 'DNI (card)', passport: 'Passport', licence: "Driver's licence" },
    continue: 'Continue',
    sideTitles: {
      front: 'Front of the document',
      back: 'Back of the document',
      front_angle: 'Front, tilted',
      data_page: 'Passport data page',
    },
    sideHints: {
      front: 'Lay the document on a table, in good light, and take a photo of the whole front.',
      back: 'Turn it over and take a photo of the whole back.',
      front_angle: 'Now take another photo of the front with the document slightly tilted (as if seen from the side).',
      data_page: 'Open the passport at the photo page and take a photo of the whole page, including the two lines at the bottom.',
    },
    fileLabel: 'Photo',
    fileHint: 'JPEG, PNG or WebP, up to 10 MB.',
    upload: 'Send photo',
    attemptsLeft: (n: number) => (n === 1 ? 'You have 1 try left for this photo.' : `You have ${n} tries left for this photo.`),
    processingTitle: 'We are checking the photo',
    processingBody: 'This takes a few seconds. The page refreshes by itself.',
    refresh: 'Refresh',
    registryTitle: 'We are checking with the national registry',
    registryBody:
      'Your document passed our checks and we are confirming it with the national registry of persons. This can take a while: your verification stays in progress meanwhile and this page refreshes by itself. If you close it, open it again from the same link.',
    problems: {
      blurry: 'The photo is blurred. Rest the document on a table, hold the phone still and take it again.',
      glare: 'There is a reflection over the data. Change the angle or move away from direct light.',
      too_dark: 'The photo is too dark. Find a place with more light.',
      barcode_not_found: 'The barcode cannot be seen. Fit the whole document in the photo without covering anything.',
      mrz_not_found: 'The lines at the bottom of the document cannot be read. Make sure they are whole and sharp.',
      no_document: 'We could not find a document in the photo. Let the document fill most of the picture.',
      other_side: 'That is the other side of the document. Send the side we asked for.',
      wrong_type: 'That is not the document you chose. Send a photo of the chosen document.',
      screen: 'This looks like a photo of a screen or of a printed copy. Take the photo of the original document.',
      unreadable_image: 'We could not open that image. Try another photo.',
      print_unreadable:
        'The printed details cannot be read well. Take another photo straight on, in good light, without reflections, with the whole document in focus.',
    },
    refusals: {
      empty: 'The file is empty. Choose a photo.',
      unsupported_type: 'That file is not a photo we can read. Send a JPEG, PNG or WebP image.',
      heic: 'That photo is in HEIC format (iPhone). In Settings > Camera > Formats choose "Most Compatible", or take the photo from this page, and send it again.',
      corrupt: 'The image is damaged or incomplete. Take the photo again.',
      too_large: 'The photo is larger than 10 MB. Send a smaller one.',
      too_many_pixels: 'The image is too large. Send an ordinary phone photo.',
      missing: 'Choose a photo to send.',
    },
    camera: {
      shoot: 'Take photo',
      start: 'Fit the document inside the frame.',
      focus: 'Focusing… hold the phone still.',
      dark: 'It is too dark: find a brighter place.',
      glare: 'Avoid reflections: change the angle a little.',
      ready: 'Good, take the photo.',
      uploading: 'Sending the photo…',
      uploadFailed: 'It could not be sent. Check your connection and try again.',
      review: 'Check that the whole document shows, sharp and without glare.',
      holding: 'Hold the phone still: the photo is taken as soon as it is sharp.',
      reviewBlurred:
        'The photo came out blurred and may not be readable: take another holding the phone still, or send it if the details read well.',
      shotLabel: 'The photo you took',
      send: 'Send photo',
      retake: 'Take another',
      useFile: 'Upload a photo instead',
      wayOn: 'You can choose a photo, or take it with the phone camera, with the button below.',
    },
    samplesTitle: 'Test documents (test mode only)',
    samplesHint: 'They go through the same reading as a real photo.',
    useSample: 'Use',
  },
  face: {
    title: 'Verify your face',
    intro: 'We will use the front camera to check that it is you and that you are present.',
    introHints: [
      'Find a well-lit place with nobody else in the picture.',
      'Take off sunglasses, face masks or caps.',
      'We will ask you to look straight ahead and to turn your head, in the order we show.',
    ],
    startCamera: 'Start with the camera',
    uploadOffer: 'Cannot use the camera in this browser? You can send two photos taken with your phone.',
    startUpload: 'Send two photos',
    challengeTitle: 'Follow the instructions',
    challengeIntro: 'Place your face inside the oval and make these moves, in this order, holding each one for a moment:',
    poses: {
      straight: 'Look straight at the camera',
      left: 'Turn your head to your left',
      right: 'Turn your head to your right',
    },
    camera: {
      videoLabel: 'Your front camera',
      ready: 'Place your face inside the oval.',
      closer: 'Come a little closer.',
      center: 'Center your face in the oval.',
      several: 'There is more than one face: make sure you are alone in front of the camera.',
      light: 'Too dark: find a brighter place.',
      turnMore: 'Turn a little more.',
      hold: 'Good, hold it for a moment.',
      done: 'Done.',
      uploading: 'Sending the photos…',
      uploadFailed: 'The photos could not be sent. Check your connection and try again.',
      restart: 'Start again',
    },
    needsCamera: (upload) =>
      upload
        ? 'This step uses the camera, which needs JavaScript, and JavaScript is turned off in this browser. You can send two photos with the button below, continue on your phone with the QR code, or turn JavaScript on and reload the page.'
        : 'This step uses the camera, which needs JavaScript, and JavaScript is turned off in this browser. Continue on your phone with the QR code below, or turn JavaScript on and reload the page.',
    cameraWayOn: (upload) =>
      upload
        ? 'You can also send two photos with the button below or continue on your phone with the QR code.'
        : 'You can also continue on your phone with the QR code below.',
    switchToUpload: 'I cannot use the camera: send two photos',
    back: 'Back',
    uploadTitle: 'Send two photos of yourself',
    uploadIntro: 'Take both photos now, with the front camera, in good light and with nobody else in the picture.',
    uploadStraight: 'Photo 1: looking straight ahead',
    uploadTurned: { left: 'Photo 2: with your head turned to your left', right: 'Photo 2: with your head turned to your right' },
    uploadSend: 'Send photos',
    processingTitle: 'We are checking the photos',
    processingBody: 'This takes a few seconds. The page refreshes by itself.',
    refresh: 'Refresh',
    attemptsLeft: (n: number) => (n === 1 ? 'You have 1 try left.' : `You have ${n} tries left.`),
    reasons: {
      face_not_found:
        'We could not find your face in every photo. Come closer, keep your whole face inside the oval and find good light.',
      face_multiple: 'More than one face appeared. Make sure you are alone in front of the camera.',
      liveness_challenge_failed:
        'We could not see the moves we asked for, in that order. Make them slowly and hold each position for a moment.',
      liveness_spoof_detected:
        'This looks like a photo, a screen or a different person. Do it yourself, live, in front of the camera.',
      face_mismatch: 'Your face does not match the photo on the document. Try again, facing the camera in good light.',
      face_document_photo_missing: 'We could not use the photo on your document to compare it with your face.',
      retry: 'We could not check those photos. Please try again.',
      expired:
        'Too much time went by and we could not check the moves. This does not use up any of your tries: start again and make the moves as soon as they appear, without leaving this page.',
      expired_again:
        'Too much time went by again and we could not check the moves (this does not use up any of your tries). If your connection is slow, connect to wifi or continue on another device with the QR code on this page.',
    },
    refusals: {
      no_frames: 'We did not receive the photos. Please try again.',
      too_many_frames: 'Too many photos arrived. Please try again.',
      too_large: 'One of the photos is too large. Send smaller photos.',
      unsupported: 'One of the files is not a photo we can read. Send JPEG, PNG or WebP images.',
      heic: 'A photo is in HEIC format (iPhone). In Settings > Camera > Formats choose "Most Compatible" and take it again.',
      too_small: 'One of the photos is too small. Take it with the phone camera.',
      too_many_pixels: 'One of the images is too large. Send an ordinary phone photo.',
      corrupt: 'One of the images is damaged or incomplete. Take it again.',
      times_invalid: 'The photos arrived without their times. Please try again.',
      stale_nonce: 'Those photos do not belong to this attempt (perhaps they were already sent). Start again.',
    },
    samplesTitle: 'Test sequences (test mode only)',
    samplesHint: 'They go through the same checks as camera frames, in the order this attempt asks for.',
    useSample: 'Use',
  },
  documentChecks: {
    problems: {
      not_tilted:
        'That photo is the same as the front one. Tilt the document a little more (as if looking at it from the side) and take another.',
      other_document:
        'That back belongs to another document. Send the back of the same document you photographed from the front.',
      looks_like_dni: 'This looks like a DNI: do you want to switch to DNI?',
      looks_like_passport: 'This looks like a passport: do you want to switch to passport?',
      looks_like_licence: 'This looks like a driver licence: do you want to switch to licence?',
    },
    switchTo: { dni: 'Switch to DNI', passport: 'Switch to passport', licence: 'Switch to driver licence' },
    another: 'I will use another document',
  },
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
