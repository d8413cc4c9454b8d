// First: starts tracing (when configured) before the modules it instruments are loaded.
import './tracing';
import { InternalClient } from '@idv/contracts';
import {
  AddressThrottle,
  ClientAddresses,
  connectBroker,
  createRedis,
  openDatabase,
  runMain,
  smtpOptionsFrom,
  startRuntime,
} from '@idv/kit';
import { dictionary } from '@zxcvbn-ts/language-common';
import { DashboardMailer } from './adapters/mailer';
import { Argon2PasswordHasher } from './adapters/password-hasher';
import { createApp } from './app';
import { dashboardKeyring, dashboardSecret, readConfig } from './config';
import { DATABASE_SCHEMA } from './schema';
import { commonPasswordSet } from './domain/passwords';
import { ownerNoticesConsumer } from './jobs/owner-notices';
import { THROTTLES } from './use-cases/ports';

runMain('dashboard', async () => {
  const config = readConfig();
  const runtime = startRuntime('dashboard', config);
  const { lifecycle } = runtime;
  const pool = await openDatabase(runtime, {
    url: config.DATABASE_URL,
    ...DATABASE_SCHEMA,
    max: config.DATABASE_POOL_MAX,
  });
  const redis = createRedis(config.REDIS_URL);
  lifecycle.onStop('redis', async () => {
    await redis.quit().catch(() => undefined);
  });
  const mailer = new DashboardMailer(smtpOptionsFrom(config, config.OUTBOUND_TIMEOUT_MS));
  lifecycle.onStop('smtp', () => mailer.close());
  const perMinute = (count: number) => count / 60;
  const throttle = new AddressThrottle(
    redis,
    {
      [THROTTLES.signUp]: { perSecond: perMinute(config.THROTTLE_SIGN_UPS_PER_MINUTE), burst: config.THROTTLE_SIGN_UPS_BURST },
      [THROTTLES.signIn]: { perSecond: perMinute(config.THROTTLE_SIGN_INS_PER_MINUTE), burst: config.THROTTLE_SIGN_INS_BURST },
      [THROTTLES.emailLinks]: { perSecond: 1 / 600, burst: 5 },
      [THROTTLES.failedPassword]: {
        perSecond: config.THROTTLE_FAILED_PASSWORDS_PER_HOUR / 3600,
        burst: config.THROTTLE_FAILED_PASSWORDS_BURST,
      },
    },
    { logger: runtime.logger, metrics: runtime.metrics },
  );

  // The owners' notices (the balance's and the webhook circuits' events). At shutdown the broker stops
  // consuming, lets the notices under way finish, then closes, before SMTP and the pool (stopped in reverse).
  const broker = connectBroker(runtime, { url: config.AMQP_URL, namespace: config.BROKER_NAMESPACE });
  await broker.consume(ownerNoticesConsumer({ pool, mailer, baseUrl: config.DASHBOARD_BASE_URL, logger: runtime.logger }));

  const app = createApp({
    ports: {
      pool,
      platform: new InternalClient({
        urls: {
          keys: config.KEYS_URL,
          sessions: config.SESSIONS_URL,
          webhooks: config.WEBHOOKS_URL,
          'flow-runner': config.FLOW_URL,
        },
        internalToken: config.INTERNAL_TOKEN,
        timeoutMs: config.OUTBOUND_TIMEOUT_MS,
      }),
      mailer,
      hasher: new Argon2PasswordHasher(),
      throttle,
      commonPasswords: commonPasswordSet(dictionary['passwords-common']),
      logger: runtime.logger,
      baseUrl: config.DASHBOARD_BASE_URL,
      signIn: {
        idleSeconds: config.SIGN_IN_IDLE_HOURS * 3600,
        maxSeconds: config.SIGN_IN_MAX_HOURS * 3600,
        operatorIdleSeconds: config.OPERATOR_SIGN_IN_IDLE_MINUTES * 60,
        operatorMaxSeconds: config.OPERATOR_SIGN_IN_MAX_HOURS * 3600,
      },
      keyring: dashboardKeyring(config),
    },
    redis,
    broker,
    logger: runtime.logger,
    metrics: runtime.metrics,
    clientAddresses: new ClientAddresses(config.TRUSTED_PROXIES),
    secureCookies: config.SECURE_COOKIES,
    secret: dashboardSecret(config),
    internalToken: config.INTERNAL_TOKEN,
    isShuttingDown: () => lifecycle.shuttingDown,
  });
  await lifecycle.listen(app, config.PORT, config.HOST);
  return lifecycle;
});
