import { SmtpTransport, type Logger, type SmtpOptions } from '@idv/kit';
import { Agent, request } from 'undici';
import type { CodeSender } from '../domain/ports';
import type { Locale } from '../domain/i18n';
import type { OtpChannel, SendResult } from '../domain/steps';

const MAIL_COPY: Record<Locale, { subject: (code: string) => string; text: (code: string, minutes: number) => string }> = {
  es: {
    subject: (code) => `Tu código de verificación es ${code}`,
    text: (code, minutes) =>
      `Tu código de verificación es ${code}.\n\nVence en ${minutes} minutos. Si no pediste este código, ignorá este mensaje.\n`,
  },
  en: {
    subject: (code) => `Your verification code is ${code}`,
    text: (code, minutes) =>
      `Your verification code is ${code}.\n\nIt expires in ${minutes} minutes. If you did not ask for this code, ignore this message.\n`,
  },
};

/** E-mail codes over the kit's SMTP transport. */
export class SmtpMailer {
  private readonly transport: SmtpTransport;

  constructor(
    options: SmtpOptions,
    private readonly validityMinutes: number,
  ) {
    this.transport = new SmtpTransport(options);
  }

  async send(to: string, code: string, locale: Locale): Promise<void> {
    const copy = MAIL_COPY[locale];
    await this.transport.send({ to, subject: copy.subject(code), text: copy.text(code, this.validityMinutes) });
  }

  close(): void {
    this.transport.close();
  }
}

export interface WhatsappOptions {
  apiUrl: string;
  phoneNumberId: string;
  token: string;
  templateName: string;
  templateLanguage: string;
  timeoutMs: number;
}

export class WhatsappError extends Error {
  constructor(
    readonly status: number,
    readonly providerCode: string | undefined,
  ) {
    super(`WhatsApp Cloud API answered ${status}${providerCode ? ` (code ${providerCode})` : ''}`);
    this.name = 'WhatsappError';
  }
}

/**
 * WhatsApp Business Cloud API: an authentication template whose body parameter and copy-code button
 * carry the code (`POST {api}/{phone-number-id}/messages`, Bearer token).
 */
export class WhatsappSender {
  private readonly agent: Agent;

  constructor(private readonly options: WhatsappOptions) {
    this.agent = new Agent({
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connectTimeout: options.timeoutMs,
    });
  }

  async send(e164: string, code: string): Promise<void> {
    const url = `${this.options.apiUrl.replace(/\/$/, '')}/${encodeURIComponent(this.options.phoneNumberId)}/messages`;
    const response = await request(url, {
      method: 'POST',
      dispatcher: this.agent,
      headers: { authorization: `Bearer ${this.options.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: e164.replace(/^\+/, ''),
        type: 'template',
        template: {
          name: this.options.templateName,
          language: { code: this.options.templateLanguage },
          components: [
            { type: 'body', parameters: [{ type: 'text', text: code }] },
            { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: code }] },
          ],
        },
      }),
    });
    const text = await response.body.text();
    if (response.statusCode < 200 || response.statusCode >= 300) {
      let providerCode: string | undefined;
      try {
        const parsed = JSON.parse(text) as { error?: { code?: number | string } };
        providerCode = parsed.error?.code !== undefined ? String(parsed.error.code) : undefined;
      } catch {
        providerCode = undefined;
      }
      throw new WhatsappError(response.statusCode, providerCode);
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

export interface SendMetrics {
  inc(labels: { channel: OtpChannel; result: 'sent' | 'failed' }): void;
}

/** Routes a code to its channel; a provider failure is logged and reported, never thrown at the page. */
export class ChannelCodeSender implements CodeSender {
  constructor(
    private readonly mailer: Pick<SmtpMailer, 'send'>,
    private readonly whatsapp: Pick<WhatsappSender, 'send'>,
    private readonly logger: Logger,
    private readonly metrics?: SendMetrics,
  ) {}

  async send(channel: OtpChannel, destination: string, code: string, locale: Locale): Promise<SendResult> {
    try {
      if (channel === 'email') await this.mailer.send(destination, code, locale);
      else await this.whatsapp.send(destination, code);
      this.metrics?.inc({ channel, result: 'sent' });
      return { ok: true };
    } catch (error) {
      this.metrics?.inc({ channel, result: 'failed' });
      // The destination is personal data: log the channel and the provider's answer, not the address.
      this.logger.error({ err: error, channel }, 'could not send verification code');
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  }
}
