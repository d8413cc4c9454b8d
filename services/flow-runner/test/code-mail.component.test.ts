import { createLogger } from '@idv/kit';
import { startSmtp, waitFor } from '@idv/testkit';
import { ChannelCodeSender, SmtpMailer } from '../src/adapters/code-sender';

// The e-mail codes' SMTP transport against a real SMTP server on 127.0.0.1: one pooled connection for
// codes sent one after another, a connection broken under a code retried on a fresh one, the pool
// closed on shutdown.
let smtp: Awaited<ReturnType<typeof startSmtp>>;
beforeEach(async () => {
  smtp = await startSmtp();
});
afterEach(async () => {
  await smtp.close();
});

const mailerOf = () =>
  new SmtpMailer({ host: '127.0.0.1', port: smtp.port, secure: false, from: 'IDV <no-reply@idv.example>', timeoutMs: 5_000 }, 10);
const noWhatsapp = { send: () => Promise.reject(new Error('not in this test')) };
const logger = createLogger({ service: 'code-mail-test', level: 'silent' });

describe('e-mail codes over a pooled SMTP connection', () => {
  it('when two codes are sent in a row, then both arrive over one connection', async () => {
    const mailer = mailerOf();
    try {
      await mailer.send('ana@example.com', '123456', 'es');
      await mailer.send('bea@example.com', '654321', 'en');
      expect(await smtp.codeFor('ana@example.com')).toBe('123456');
      expect(await smtp.codeFor('bea@example.com')).toBe('654321');
      expect(smtp.connections).toBe(1);
    } finally {
      mailer.close();
    }
  });

  it('when the pooled connection breaks under the next code, then the code is sent again on a fresh connection', async () => {
    const mailer = mailerOf();
    const sender = new ChannelCodeSender(mailer, noWhatsapp, logger);
    try {
      expect(await sender.send('email', 'ana@example.com', '111111', 'es')).toEqual({ ok: true });
      smtp.breakOnNextMail();
      expect(await sender.send('email', 'ana@example.com', '222222', 'es')).toEqual({ ok: true });
      expect(await smtp.codeFor('ana@example.com', 2)).toBe('222222');
      expect(smtp.mails).toHaveLength(2);
      expect(smtp.connections).toBe(2);
    } finally {
      mailer.close();
    }
  });

  it('when the service stops, then closing the mailer closes its pooled connection', async () => {
    const mailer = mailerOf();
    await mailer.send('ana@example.com', '123456', 'es');
    expect(smtp.openConnections).toBe(1);
    mailer.close();
    await waitFor(() => smtp.openConnections === 0, 5_000, 20, 'the pooled connection closed');
  });
});
