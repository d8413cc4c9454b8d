import { baseEnvSchema, databaseEnvShape, env, loadConfig, trustedProxiesEnvShape } from '@idv/kit';
import { z } from 'zod';

export const configSchema = baseEnvSchema.extend({
  PORT: env.port(8083),
  ...databaseEnvShape,
  SESSIONS_URL: env.url().default('http://127.0.0.1:8082'),
  /** SMTP relay for e-mail codes (nodemailer). TLS from the first byte when SMTP_SECURE, else STARTTLS when offered. */
  SMTP_HOST: z.string().min(1).default('127.0.0.1'),
  SMTP_PORT: env.port(25),
  SMTP_SECURE: env.boolean(false),
  SMTP_USER: z.string().optional(),
  SMTP_PASSWORD: z.string().optional(),
  SMTP_FROM: z.string().min(3).default('Verificación de identidad <no-reply@idv.example>'),
  /** WhatsApp Business Cloud API: POST `${WHATSAPP_API_URL}/${WHATSAPP_PHONE_NUMBER_ID}/messages`. */
  WHATSAPP_API_URL: env.url().default('https://graph.facebook.com/v21.0'),
  WHATSAPP_PHONE_NUMBER_ID: z.string().default('000000000000000'),
  WHATSAPP_TOKEN: z.string().default('unset'),
  WHATSAPP_TEMPLATE_NAME: z.string().min(1).default('verification_code'),
  WHATSAPP_TEMPLATE_LANGUAGE: z.string().min(2).default('es_AR'),
  /** Redis: the per-address throttle of link opens, shared by the replicas (fails open when Redis is down). */
  REDIS_URL: env.url(),
  ...trustedProxiesEnvShape,
  /** Per client address: link opens before the "too many attempts" page (429). */
  THROTTLE_LINK_OPENS_PER_SECOND: z.coerce.number().positive().default(5),
  THROTTLE_LINK_OPENS_BURST: z.coerce.number().int().positive().default(100),
  /** Timeout of every outbound call (sessions service, SMTP, WhatsApp). */
  OUTBOUND_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
});
export type Config = z.infer<typeof configSchema>;

export const readConfig = (source: NodeJS.ProcessEnv = process.env): Config => loadConfig(configSchema, source);

/** The binding cookie is `Secure` everywhere except local development and tests (plain http there). */
export const secureCookies = (config: Pick<Config, 'NODE_ENV'>): boolean => config.NODE_ENV === 'production';
