import type { EditorFieldType, EditorStepType } from './flow-editor';
import type { Locale } from './i18n';

/** The flow editor's words, apart from the rest of the dashboard's (only its pages use them). */
export interface EditorMessages {
  formView: string;
  jsonView: string;
  lead: string;
  notEditable: string;
  problems: (count: number) => string;
  noProblems: string;
  steps: string;
  consentFirst: string;
  stepTypes: Record<EditorStepType, string>;
  stepTypeHints: Record<EditorStepType, string>;
  fieldTypes: Record<EditorFieldType, string>;
  stepNumber: (position: number, type: string) => string;
  optionNumber: (position: number, type: string) => string;
  stepId: string;
  stepIdHint: string;
  documents: string;
  documentKinds: Record<'dni' | 'passport' | 'licence', string>;
  registryCheck: string;
  registryCheckHint: string;
  maxAttempts: string;
  maxAttemptsHint: string;
  compareWithDocument: string;
  compareAuto: string;
  compareYes: string;
  compareNo: string;
  allowUpload: string;
  allowUploadHint: string;
  formTitle: string;
  fields: string;
  fieldNumber: (position: number, type: string) => string;
  fieldName: string;
  fieldNameHint: string;
  fieldLabel: string;
  required: string;
  minLength: string;
  maxLength: string;
  min: string;
  max: string;
  dateMin: string;
  dateMax: string;
  integer: string;
  selectOptions: string;
  optionValue: string;
  optionLabel: string;
  addSelectOption: string;
  addField: (type: string) => string;
  choiceMin: string;
  choiceMinHint: string;
  choiceOptions: string;
  addChoiceOption: (type: string) => string;
  addStep: string;
  addStepOf: (type: string) => string;
  moveUp: string;
  moveDown: string;
  remove: string;
  dragHint: string;
  projectOptions: string;
  optionFlags: Record<'documentData' | 'verifiedChannels' | 'formData' | 'evidenceLinks', { label: string; hint: string }>;
  webhookEvents: string;
  webhookEventsHint: string;
  noVerdictWarning: string;
  privacyPolicyUrl: string;
  privacyPolicyUrlHint: string;
  jsonPreview: string;
  autosave: { saving: string; saved: string; failed: string };
  save: string;
  applyJson: string;
  staleButton: string;
}

const es: EditorMessages = {
  formView: 'Editor',
  jsonView: 'JSON',
  lead: 'Armá el flujo paso a paso. El consentimiento va siempre primero y no se configura. Lo que cambiás se guarda como borrador; nada llega a las personas hasta que lo publicás.',
  notEditable:
    'El borrador no es un JSON que el editor pueda mostrar (no es un objeto o tiene un error de sintaxis). Corregilo en la vista JSON.',
  problems: (count) => (count === 1 ? 'El borrador tiene 1 problema:' : `El borrador tiene ${count} problemas:`),
  noProblems: 'El borrador es válido: se puede publicar.',
  steps: 'Pasos del flujo',
  consentFirst: 'Consentimiento (siempre primero, lo pone la plataforma)',
  stepTypes: {
    form: 'Formulario',
    document_ar: 'Documento argentino',
    face_liveness: 'Rostro y prueba de vida',
    otp_email: 'Código por correo',
    otp_whatsapp: 'Código por WhatsApp',
    choice: 'Elección entre pasos',
  },
  stepTypeHints: {
    form: 'Preguntas con respuestas de texto, fecha, número, lista o casilla.',
    document_ar: 'DNI, pasaporte o licencia: se leen el código de barras, la MRZ y el frente.',
    face_liveness: 'Una selfie en vivo, comparada con la foto del documento.',
    otp_email: 'Un código de 6 dígitos enviado a la dirección que la persona escribe.',
    otp_whatsapp: 'Un código de 6 dígitos enviado por WhatsApp al número que la persona escribe.',
    choice: 'La persona elige al menos una cantidad de pasos entre varios.',
  },
  fieldTypes: { text: 'Texto', select: 'Lista de opciones', date: 'Fecha', number: 'Número', checkbox: 'Casilla' },
  stepNumber: (position, type) => `Paso ${position}: ${type}`,
  optionNumber: (position, type) => `Opción ${position}: ${type}`,
  stepId: 'Identificador del paso',
  stepIdHint: 'Minúsculas, números, _ o -; empieza con una letra. Aparece en los eventos y en la sesión.',
  documents: 'Documentos aceptados',
  documentKinds: { dni: 'DNI', passport: 'Pasaporte', licence: 'Licencia de conducir' },
  registryCheck: 'Consultar el registro nacional',
  registryCheckHint: 'Confirma los datos leídos con RENAPER.',
  maxAttempts: 'Intentos',
  maxAttemptsHint: 'De 1 a 5; después de eso el paso falla con el motivo del último intento.',
  compareWithDocument: 'Comparar con la foto del documento',
  compareAuto: 'Automático (sí cuando hay un paso de documento antes)',
  compareYes: 'Sí',
  compareNo: 'No',
  allowUpload: 'Permitir subir una foto en vez de usar la cámara',
  allowUploadHint: 'Menos seguro: una foto de archivo no prueba que la persona esté ahí.',
  formTitle: 'Título del formulario (opcional)',
  fields: 'Campos',
  fieldNumber: (position, type) => `Campo ${position}: ${type}`,
  fieldName: 'Nombre del campo',
  fieldNameHint: 'Minúsculas, números o _; es la clave del dato en la sesión.',
  fieldLabel: 'Texto que ve la persona',
  required: 'Obligatorio',
  minLength: 'Largo mínimo',
  maxLength: 'Largo máximo',
  min: 'Mínimo',
  max: 'Máximo',
  dateMin: 'Fecha mínima (AAAA-MM-DD)',
  dateMax: 'Fecha máxima (AAAA-MM-DD)',
  integer: 'Sólo números enteros',
  selectOptions: 'Opciones de la lista',
  optionValue: 'Valor',
  optionLabel: 'Texto',
  addSelectOption: 'Agregar una opción',
  addField: (type) => `Agregar campo: ${type}`,
  choiceMin: 'Cuántas opciones tiene que completar como mínimo',
  choiceMinHint: 'No puede superar la cantidad de opciones.',
  choiceOptions: 'Opciones para elegir',
  addChoiceOption: (type) => `Agregar opción: ${type}`,
  addStep: 'Agregar un paso',
  addStepOf: (type) => `Agregar: ${type}`,
  moveUp: 'Subir',
  moveDown: 'Bajar',
  remove: 'Quitar',
  dragHint: 'Arrastrá un paso para reordenarlo, o usá Subir y Bajar.',
  projectOptions: 'Qué recibe tu sistema',
  optionFlags: {
    documentData: { label: 'Datos del documento', hint: 'Nombre, número y fechas leídos, en la sesión y en los eventos.' },
    verifiedChannels: { label: 'Correo y teléfono verificados', hint: 'Las direcciones confirmadas con un código.' },
    formData: { label: 'Respuestas de los formularios', hint: 'Lo que la persona escribió en cada campo.' },
    evidenceLinks: { label: 'Enlaces a las imágenes', hint: 'Enlaces firmados y de corta duración a las fotos.' },
  },
  webhookEvents: 'Eventos que se envían a tus webhooks',
  webhookEventsHint: 'Sólo estos eventos de las sesiones de este proyecto llegan a tus endpoints.',
  noVerdictWarning:
    'No marcaste ningún evento de veredicto (aprobada, rechazada o completada): tu sistema no se va a enterar del resultado por webhook. Es la causa más común de “no me llegan los webhooks”.',
  privacyPolicyUrl: 'Tu política de privacidad (https, opcional)',
  privacyPolicyUrlHint: 'El paso de consentimiento la enlaza.',
  jsonPreview: 'El JSON que se publica',
  autosave: { saving: 'Guardando…', saved: 'Borrador guardado.', failed: 'No se pudo guardar; tus cambios siguen en la página.' },
  save: 'Guardar borrador',
  applyJson: 'Guardar el JSON',
  staleButton:
    'Ese botón ya no corresponde al borrador (¿otra pestaña lo cambió?). Guardamos lo que había en la página; revisalo y probá de nuevo.',
};

const en: EditorMessages = {
  formView: 'Editor',
  jsonView: 'JSON',
  lead: 'Build the flow step by step. Consent always comes first and is not configured. What you change is saved as a draft; nothing reaches people until you publish it.',
  notEditable: 'The draft is not JSON the editor can show (not an object, or a syntax error). Fix it in the JSON view.',
  problems: (count) => (count === 1 ? 'The draft has 1 problem:' : `The draft has ${count} problems:`),
  noProblems: 'The draft is valid: it can be published.',
  steps: 'Steps of the flow',
  consentFirst: 'Consent (always first, added by the platform)',
  stepTypes: {
    form: 'Form',
    document_ar: 'Argentine document',
    face_liveness: 'Face and liveness',
    otp_email: 'E-mail code',
    otp_whatsapp: 'WhatsApp code',
    choice: 'Choice between steps',
  },
  stepTypeHints: {
    form: 'Questions answered with text, a date, a number, a list or a checkbox.',
    document_ar: 'DNI, passport or licence: the barcode, the MRZ and the front are read.',
    face_liveness: "A live selfie, compared with the document's photo.",
    otp_email: 'A 6-digit code sent to the address the person types.',
    otp_whatsapp: 'A 6-digit code sent over WhatsApp to the number the person types.',
    choice: 'The person picks at least a number of steps among several.',
  },
  fieldTypes: { text: 'Text', select: 'List of options', date: 'Date', number: 'Number', checkbox: 'Checkbox' },
  stepNumber: (position, type) => `Step ${position}: ${type}`,
  optionNumber: (position, type) => `Option ${position}: ${type}`,
  stepId: 'Step id',
  stepIdHint: 'Lowercase letters, digits, _ or -; starts with a letter. It appears in events and in the session.',
  documents: 'Documents accepted',
  documentKinds: { dni: 'DNI', passport: 'Passport', licence: "Driver's licence" },
  registryCheck: 'Check the national registry',
  registryCheckHint: 'Confirms the data read with RENAPER.',
  maxAttempts: 'Attempts',
  maxAttemptsHint: "1 to 5; then the step fails with the last attempt's reason.",
  compareWithDocument: "Compare with the document's photo",
  compareAuto: 'Automatic (yes when a document step comes before)',
  compareYes: 'Yes',
  compareNo: 'No',
  allowUpload: 'Allow uploading a photo instead of using the camera',
  allowUploadHint: 'Less secure: a stored photo does not prove the person is there.',
  formTitle: 'Form title (optional)',
  fields: 'Fields',
  fieldNumber: (position, type) => `Field ${position}: ${type}`,
  fieldName: 'Field name',
  fieldNameHint: "Lowercase letters, digits or _; the answer's key in the session.",
  fieldLabel: 'Text the person sees',
  required: 'Required',
  minLength: 'Minimum length',
  maxLength: 'Maximum length',
  min: 'Minimum',
  max: 'Maximum',
  dateMin: 'Earliest date (YYYY-MM-DD)',
  dateMax: 'Latest date (YYYY-MM-DD)',
  integer: 'Whole numbers only',
  selectOptions: 'Options of the list',
  optionValue: 'Value',
  optionLabel: 'Text',
  addSelectOption: 'Add an option',
  addField: (type) => `Add field: ${type}`,
  choiceMin: 'How many options at least must be completed',
  choiceMinHint: 'At most the number of options.',
  choiceOptions: 'Options to choose from',
  addChoiceOption: (type) => `Add option: ${type}`,
  addStep: 'Add a step',
  addStepOf: (type) => `Add: ${type}`,
  moveUp: 'Move up',
  moveDown: 'Move down',
  remove: 'Remove',
  dragHint: 'Drag a step to reorder it, or use Move up and Move down.',
  projectOptions: 'What your system receives',
  optionFlags: {
    documentData: { label: 'Document data', hint: 'The name, number and dates read, in the session and in events.' },
    verifiedChannels: { label: 'Verified e-mail and phone', hint: 'The addresses confirmed with a code.' },
    formData: { label: 'Form answers', hint: 'What the person typed in each field.' },
    evidenceLinks: { label: 'Links to the images', hint: 'Signed, short-lived links to the photos.' },
  },
  webhookEvents: 'Events sent to your webhooks',
  webhookEventsHint: "Only these events of this project's sessions reach your endpoints.",
  noVerdictWarning:
    'No verdict event is ticked (approved, rejected or completed): your system will not hear the result by webhook. This is the most frequent cause of “my webhooks never arrive”.',
  privacyPolicyUrl: 'Your privacy policy (https, optional)',
  privacyPolicyUrlHint: 'The consent step links to it.',
  jsonPreview: 'The JSON that is published',
  autosave: { saving: 'Saving…', saved: 'Draft saved.', failed: 'Could not save; your changes are still on the page.' },
  save: 'Save draft',
  applyJson: 'Save the JSON',
  staleButton:
    'That button no longer matches the draft (did another tab change it?). What was on the page was saved; check it and try again.',
};

export const EDITOR_MESSAGES: Record<Locale, EditorMessages> = { es, en };
