import path from 'node:path';
import { AddressThrottle, ClientAddresses, createRedis, openDatabase, runMain, startRuntime } from '@idv/kit';
import { ChannelCodeSender, SmtpMailer, WhatsappSender } from './adapters/code-sender';
import { PgFlowStore } from './adapters/flow.repository';
import { SessionsClient } from './adapters/sessions.client';
import { createApp } from './app';
import { readConfig, secureCookies } from './config';
import { FlowService } from './domain/flow-service';
import { OTP_RULES } from './domain/steps/otp';

const SERVICE = 'flow-runner';
const SCHEMA = 'flow';

runMain(SERVICE, async () => {
  const config = readConfig();
  const runtime = startRuntime(SERVICE, config);
  const { logger, metrics, lifecycle } = runtime;
  const pool = await openDatabase(runtime, {
    url: config.DATABASE_URL,
    schema: SCHEMA,
    migrations: [path.join(__dirname, '..', 'migrations')],
    max: config.DATABASE_POOL_MAX,
  });

  const sessions = new SessionsClient(config.SESSIONS_URL, config.INTERNAL_TOKEN, config.OUTBOUND_TIMEOUT_MS);
  lifecycle.onStop('sessions-client', () => sessions.close());
  const validityMinutes = Math.max(1, Math.round((OTP_RULES.validityMs * config.TIME_SCALE) / 60_000));
  const mailer = new SmtpMailer(
    {
      host: config.SMTP_HOST,
      port: config.SMTP_PORT,
      secure: config.SMTP_SECURE,
      ...(config.SMTP_USER ? { user: config.SMTP_USER } : {}),
      ...(config.SMTP_PASSWORD ? { password: config.SMTP_PASSWORD } : {}),
      from: config.SMTP_FROM,
      timeoutMs: config.OUTBOUND_TIMEOUT_MS,
    },
    validityMinutes,
  );
  lifecycle.onStop('smtp', () => mailer.close());
  const whatsapp = new WhatsappSender({
    apiUrl: config.WHATSAPP_API_URL,
    phoneNumberId: config.WHATSAPP_PHONE_NUMBER_ID,
    token: config.WHATSAPP_TOKEN,
    templateName: config.WHATSAPP_TEMPLATE_NAME,
    templateLanguage: config.WHATSAPP_TEMPLATE_LANGUAGE,
    timeoutMs: config.OUTBOUND_TIMEOUT_MS,
  });
  lifecycle.onStop('whatsapp', () => whatsapp.close());

  const codesSent = metrics.counter('flow_codes_sent_total', 'Verification codes handed to a provider', [
    'channel',
    'result',
  ] as const);
  const resolved = metrics.counter('flow_sessions_resolved_total', 'Flows finished, by outcome', ['outcome'] as const);
  const flows = new FlowService({
    store: new PgFlowStore(pool),
    sessions,
    sender: new ChannelCodeSender(mailer, whatsapp, logger, { inc: (labels) => codesSent.inc(labels) }),
    timeScale: config.TIME_SCALE,
    onResolved: (outcome) => resolved.inc({ outcome }),
  });

  const redis = createRedis(config.REDIS_URL);
  lifecycle.onStop('redis', async () => {
    await redis.quit().catch(() => undefined);
  });
  const throttle = new AddressThrottle(
    redis,
    { link_open: { perSecond: config.THROTTLE_LINK_OPENS_PER_SECOND, burst: config.THROTTLE_LINK_OPENS_BURST } },
    { logger, metrics },
  );

  const app = createApp({
    pool,
    flows,
    throttle,
    clientAddresses: new ClientAddresses(config.TRUSTED_PROXIES),
    logger,
    metrics,
    secureCookies: secureCookies(config),
    isShuttingDown: () => lifecycle.shuttingDown,
  });
  await lifecycle.listen(app, config.PORT, config.HOST);
  return lifecycle;
});
