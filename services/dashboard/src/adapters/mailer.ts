import type { AccountStatus } from '@idv/contracts';
import { SmtpTransport, type SmtpOptions } from '@idv/kit';
import { MESSAGES, type Locale } from '../domain/i18n';
import type { Notice } from '../domain/owner-notices';

/** The dashboard's mail (confirmation links) over the kit's SMTP transport, the e-mail codes' path. */
export class DashboardMailer {
  private readonly transport: SmtpTransport;

  constructor(options: SmtpOptions) {
    this.transport = new SmtpTransport(options);
  }

  async sendConfirmation(to: string, name: string, link: string, validHours: number, locale: Locale): Promise<void> {
    const copy = MESSAGES[locale].mail;
    await this.transport.send({ to, subject: copy.confirmSubject, text: copy.confirmText(name, link, validHours) });
  }

  async sendAccessLinks(to: string, name: string, links: { signIn: string; reset: string }, locale: Locale): Promise<void> {
    const copy = MESSAGES[locale].mail;
    await this.transport.send({ to, subject: copy.accessSubject, text: copy.accessText(name, links.signIn, links.reset) });
  }

  async sendInvitation(
    to: string,
    accountName: string,
    role: string,
    link: string,
    validDays: number,
    locale: Locale,
  ): Promise<void> {
    const copy = MESSAGES[locale].mail;
    await this.transport.send({
      to,
      subject: copy.inviteSubject(accountName),
      text: copy.inviteText(accountName, role, link, validDays),
    });
  }

  async sendAccountDecision(to: string, name: string, status: AccountStatus, reason: string, locale: Locale): Promise<void> {
    const copy = MESSAGES[locale].mail;
    await this.transport.send({ to, subject: copy.decisionSubject(status), text: copy.decisionText(name, status, reason) });
  }

  /** An owner's notice (low balance, tokens spent, a webhook paused or back): what happened and where to act. */
  async sendOwnerNotice(to: string, name: string, notice: Notice, link: string, locale: Locale): Promise<void> {
    const copy = MESSAGES[locale].notices;
    await this.transport.send({ to, subject: copy.mailSubject(notice), text: copy.mailText(notice, name, link) });
  }

  close(): void {
    this.transport.close();
  }
}

export type Mailer = Pick<
  DashboardMailer,
  'sendConfirmation' | 'sendAccountDecision' | 'sendAccessLinks' | 'sendInvitation' | 'sendOwnerNotice'
>;
