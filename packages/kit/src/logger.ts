import pino, { type Logger } from 'pino';

/**
 * Secret values the logs must never carry, wherever they appear (message, field, error, url): API keys,
 * webhook signing secrets, link tokens (whoever holds an unredeemed `lt_` can open the flow) and the
 * flow-runner's hand-over tokens (`ho_`: whoever holds a live one takes the flow over) and the dashboard's
 * sign-in cookies and e-mailed links (`dt_`).
 */
const SECRET_PATTERN = /\b(sk_live_|sk_test_|whsec_|lt_|ho_|dt_)[A-Za-z0-9_-]+/g;

export function redactSecrets(text: string): string {
  return text.replace(SECRET_PATTERN, '$1[REDACTED]');
}

export interface LoggerOptions {
  service: string;
  level?: string;
  destination?: pino.DestinationStream;
  /** Fields added to every line (the active span's ids when tracing is on). */
  mixin?: () => object;
}

export function createLogger({ service, level = 'info', destination, mixin }: LoggerOptions): Logger {
  return pino(
    {
      level,
      ...(mixin ? { mixin } : {}),
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: ['req.headers.authorization', 'req.headers["x-idv-internal-token"]'], censor: '[REDACTED]' },
      // Redaction by value, on the serialized line: no caller has to remember which field holds a secret.
      hooks: { streamWrite: redactSecrets },
    },
    destination,
  );
}

export type { Logger };
