/** The documents a `document_ar` step may accept, apart from the schemas (the browser bundle takes these alone). */
export const DOCUMENT_KINDS = ['dni', 'passport', 'licence'] as const;
