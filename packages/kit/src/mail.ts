import net from 'node:net';
import nodemailer, { type Transporter } from 'nodemailer';
import { z } from 'zod';
import { env } from './config';

/** The SMTP relay every service that sends mail uses (e-mail codes, the dashboard's links). */
export const smtpEnvShape = {
  /** SMTP relay (nodemailer). TLS from the first byte when SMTP_SECURE, else STARTTLS when offered. */
  SMTP_HOST: z.string().min(1).default('127.0.0.1'),
  SMTP_PORT: env.port(25),
  SMTP_SECURE: env.boolean(false),
  SMTP_USER: z.string().optional(),
  SMTP_PASSWORD: z.string().optional(),
  SMTP_FROM: z.string().min(3).default('Verificación de identidad <no-reply@idv.example>'),
};

export interface SmtpOptions {
  host: string;
  port: number;
  secure: boolean;
  user?: string;
  password?: string;
  from: string;
  timeoutMs: number;
}

export const smtpOptionsFrom = (
  config: {
    SMTP_HOST: string;
    SMTP_PORT: number;
    SMTP_SECURE: boolean;
    SMTP_USER?: string;
    SMTP_PASSWORD?: string;
    SMTP_FROM: string;
  },
  timeoutMs: number,
): SmtpOptions => ({
  host: config.SMTP_HOST,
  port: config.SMTP_PORT,
  secure: config.SMTP_SECURE,
  ...(config.SMTP_USER ? { user: config.SMTP_USER, password: config.SMTP_PASSWORD ?? '' } : {}),
  from: config.SMTP_FROM,
  timeoutMs,
});

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Plain-text mail through SMTP (pooled connections; TLS from the start when `secure`, else STARTTLS when offered). */
export class SmtpTransport {
  private readonly transport: Transporter;

  constructor(private readonly options: SmtpOptions) {
    this.transport = nodemailer.createTransport({
      host: options.host,
      port: options.port,
      secure: options.secure,
      pool: true,
      maxConnections: 8,
      maxMessages: 1000,
      connectionTimeout: options.timeoutMs,
      greetingTimeout: options.timeoutMs,
      socketTimeout: options.timeoutMs,
      ...(options.user ? { auth: { user: options.user, pass: options.password ?? '' } } : {}),
      // Our own TCP socket with Nagle off: nodemailer writes the end of a message as a separate small
      // segment, which Nagle holds until the server's delayed ACK (~40 ms per mail). TLS (SMTP_SECURE or
      // STARTTLS) is still negotiated by nodemailer on top of it.
      getSocket: (_options: unknown, callback: (error: Error | null, socket?: { connection: net.Socket }) => void) => {
        const socket = net.connect({ host: options.host, port: options.port, noDelay: true });
        const timer = setTimeout(() => socket.destroy(new Error('SMTP connection timeout')), options.timeoutMs);
        socket.once('connect', () => {
          clearTimeout(timer);
          socket.removeAllListeners('error');
          callback(null, { connection: socket });
        });
        socket.once('error', (error) => {
          clearTimeout(timer);
          callback(error);
        });
      },
    });
  }

  /**
   * One retry when the connection broke under the message (a pooled connection the server or a proxy
   * closed while it lay idle is only found out by the next message): the pool drops it and the retry
   * takes a fresh one. A timeout is not retried (it would double a wait that already ran its length);
   * a mail whose end the server took just before the break may arrive twice, which a code's mail allows.
   */
  async send(message: MailMessage): Promise<void> {
    const mail = { from: this.options.from, ...message };
    try {
      await this.transport.sendMail(mail);
    } catch (error) {
      if (!brokenConnection(error)) throw error;
      await this.transport.sendMail(mail);
    }
  }

  close(): void {
    this.transport.close();
  }
}

/** nodemailer's codes for a connection that closed or failed under a command (not a timeout, not a refusal by the server). */
function brokenConnection(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ECONNECTION' || code === 'ESOCKET';
}
