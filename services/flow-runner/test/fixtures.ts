import { api, testEnv, waitFor } from '@idv/testkit';

export const ALL_EVENTS = [
  'verification_session.approved',
  'verification_session.rejected',
  'verification_session.completed',
  'verification_session.expired',
  'verification_session.canceled',
];

/** A flow configuration built from overrides (consent is added by the platform). */
export function buildConfig(steps: unknown[], options: Record<string, unknown> = {}) {
  return {
    steps,
    options: {
      documentData: false,
      verifiedChannels: true,
      formData: true,
      evidenceLinks: false,
      webhookEvents: ALL_EVENTS,
      ...options,
    },
  };
}

export const FORM_STEP = {
  id: 'extra',
  type: 'form',
  fields: [
    { name: 'occupation', type: 'text', label: 'Ocupación', required: true, minLength: 2, maxLength: 40 },
    {
      name: 'province',
      type: 'select',
      label: 'Provincia',
      required: true,
      options: [
        { value: 'caba', label: 'Ciudad de Buenos Aires' },
        { value: 'cordoba', label: 'Córdoba' },
      ],
    },
    { name: 'birth', type: 'date', label: 'Fecha de nacimiento', required: true, min: '1900-01-01', max: '2010-12-31' },
    { name: 'income', type: 'number', label: 'Ingresos mensuales', min: 0, max: 100000000, integer: true },
    { name: 'pep', type: 'checkbox', label: 'Soy persona expuesta políticamente' },
    { name: 'terms', type: 'checkbox', label: 'Acepto los términos', required: true },
  ],
};

export const VALID_FORM = { occupation: 'Docente', province: 'cordoba', birth: '1990-05-17', income: '150000', terms: 'on' };

export const CHOICE_STEP = {
  id: 'contact',
  type: 'choice',
  min: 1,
  options: [
    { id: 'mail', type: 'otp_email' },
    { id: 'phone', type: 'otp_whatsapp' },
  ],
};

export async function createSession(key: string, projectId: string, extra: Record<string, unknown> = {}) {
  const created = await api('POST', '/v1/verification-sessions', {
    key,
    body: { project_id: projectId, ...extra },
    baseUrl: testEnv().gatewayUrl,
  });
  if (created.status !== 201) throw new Error(`session creation failed: ${created.status} ${created.text}`);
  return created.body as { id: string; url: string; qr: { svg: string; png: string }; status: string };
}

export async function getSession(key: string, id: string) {
  const response = await api('GET', `/v1/verification-sessions/${id}`, { key, baseUrl: testEnv().gatewayUrl });
  return response.body;
}

/** Polls until `check` returns a value, or fails after the deadline. */
export function eventually<T>(
  check: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<T> {
  return waitFor(check, timeoutMs, 50, what);
}

/**
 * A test-mode sample's photo as another photo of the same card or face: cropped by 3% on each side, so
 * the document or face in it stays whole. Live mode refuses the public samples themselves (and copies of
 * them re-encoded or rescaled, `SAMPLE_MATCH_DISTANCE`); live tests that need a real capture send this.
 */
export async function anotherPhotoOf(image: Buffer): Promise<Buffer> {
  const { default: sharp } = await import('sharp');
  const { width = 1, height = 1 } = await sharp(image).metadata();
  const left = Math.round(width * 0.03);
  const top = Math.round(height * 0.03);
  return sharp(image)
    .extract({ left, top, width: width - 2 * left, height: height - 2 * top })
    .jpeg({ quality: 90 })
    .toBuffer();
}
