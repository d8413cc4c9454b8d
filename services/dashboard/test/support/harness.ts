import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { InternalClient } from '@idv/contracts';
import {
  AddressThrottle,
  Broker,
  ClientAddresses,
  Keyring,
  createLogger,
  createMetrics,
  createPool,
  createRedis,
  smtpOptionsFrom,
  type ThrottleLimit,
} from '@idv/kit';
import { privateServiceDatabase, startSmtp, testEnv } from '@idv/testkit';
import { dictionary } from '@zxcvbn-ts/language-common';
import { DashboardMailer } from '../../src/adapters/mailer';
import { Argon2PasswordHasher } from '../../src/adapters/password-hasher';
import { createApp } from '../../src/app';
import { commonPasswordSet } from '../../src/domain/passwords';
import { ownerNoticesConsumer } from '../../src/jobs/owner-notices';
import { THROTTLES } from '../../src/use-cases/ports';
import { TestBrowser } from './browser';

const GENEROUS: ThrottleLimit = { perSecond: 100, burst: 1000 };

/**
 * The dashboard's app in this process over the real stores: a private database migrated with its schema,
 * the machine's Redis, the stack's keys and sessions services, and a real SMTP server on 127.0.0.1.
 */
export async function startDashboard(options: { limits?: Partial<Record<keyof typeof THROTTLES, ThrottleLimit>> } = {}) {
  const env = testEnv();
  const database = await privateServiceDatabase({
    label: 'dashboard',
    schema: 'dashboard',
    migrationsDir: path.join(__dirname, '..', '..', 'migrations'),
  });
  const pool = createPool({ url: database.url, schema: 'dashboard', max: 8 });
  const redis = createRedis(env.redisUrl);
  const smtp = await startSmtp();
  const logger = createLogger({ service: 'dashboard-test', level: 'silent' });
  const metrics = createMetrics('dashboard');
  const mailer = new DashboardMailer(
    smtpOptionsFrom(
      { SMTP_HOST: '127.0.0.1', SMTP_PORT: smtp.port, SMTP_SECURE: false, SMTP_FROM: 'IDV <no-reply@idv.test>' },
      5000,
    ),
  );
  const platform = new InternalClient({
    urls: { keys: env.keysUrl, sessions: env.sessionsUrl, webhooks: env.webhooksUrl, 'flow-runner': env.flowUrl },
    internalToken: env.internalToken,
  });
  // The stack's broker: the owners' notices come from the stack's sessions and webhooks. The queue is this
  // harness's own (exclusive): the stack's dashboard process consumes the durable one, and would take half.
  const broker = new Broker({ url: env.amqpUrl, namespace: env.namespace, logger });
  await broker.start();
  await broker.consume(ownerNoticesConsumer({ pool, mailer, baseUrl: 'http://dashboard.test', logger }, { exclusive: true }));
  const limits = options.limits ?? {};
  const throttle = new AddressThrottle(
    redis,
    {
      [THROTTLES.signUp]: limits.signUp ?? GENEROUS,
      [THROTTLES.signIn]: limits.signIn ?? GENEROUS,
      [THROTTLES.failedPassword]: limits.failedPassword ?? GENEROUS,
      [THROTTLES.emailLinks]: limits.emailLinks ?? GENEROUS,
    },
    // A prefix of this run's own: the failed-password buckets are per e-mail, whoever the address.
    { logger, metrics, prefix: `idv:test:${env.namespace}:${Math.random().toString(36).slice(2)}:` },
  );
  const server = await new Promise<Server>((resolve) => {
    const started = createApp({
      ports: {
        pool,
        platform,
        mailer,
        hasher: new Argon2PasswordHasher(),
        throttle,
        commonPasswords: commonPasswordSet(dictionary['passwords-common']),
        logger,
        baseUrl: 'http://dashboard.test',
        signIn: { idleSeconds: 3600, maxSeconds: 86_400, operatorIdleSeconds: 1800, operatorMaxSeconds: 43_200 },
        keyring: new Keyring({ test: Buffer.alloc(32, 7) }, 'test'),
      },
      redis,
      broker,
      logger,
      metrics,
      clientAddresses: new ClientAddresses(['127.0.0.1', '::1']),
      secureCookies: true,
      secret: 'a-test-secret-of-at-least-32-characters',
      internalToken: env.internalToken,
    }).listen(0, '127.0.0.1', () => resolve(started));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    pool,
    smtp,
    broker,
    platform,
    browser: () => new TestBrowser(url),
    /** The path and query of the link in the latest confirmation mail to `email`. */
    async confirmationLink(email: string, nth = 1): Promise<string> {
      return linkInMail((await smtp.mailTo(email, nth)).raw, '/confirm-email');
    },
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await broker.close();
      mailer.close();
      await smtp.close();
      await redis.quit();
      await pool.end();
      await database.drop();
    },
  };
}

export type Dashboard = Awaited<ReturnType<typeof startDashboard>>;

/** The path and query of the dashboard's link to `path` in a mail as the SMTP server received it (quoted-printable). */
export function linkInMail(raw: string, path: string): string {
  const text = raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  const found = new RegExp(`http://dashboard\\.test(${path}\\?token=[A-Za-z0-9_-]+)`).exec(text)?.[1];
  if (!found) throw new Error(`no ${path} link in:\n${text}`);
  return found;
}

let counter = 0;
/** A fresh organisation's sign-up fields. */
export function newOwner(label = 'org') {
  counter += 1;
  const tag = `${label}${counter}${Math.random().toString(36).slice(2, 8)}`;
  return {
    organisation: `Org ${tag}`,
    name: `Owner ${tag}`,
    email: `owner-${tag}@example.com`,
    password: `una frase larga ${tag}`,
  };
}

/** A new organisation signed up and its owner signed in, in a browser of its own. */
export async function signedInOwner(dashboard: Dashboard, label = 'org') {
  const owner = newOwner(label);
  const browser = dashboard.browser();
  await browser.post('/sign-up', owner, await browser.get('/sign-up'));
  const { rows } = await dashboard.pool.query<{ id: string; account_id: `acc_${string}` }>(
    'SELECT u.id, m.account_id FROM users u JOIN memberships m ON m.user_id = u.id WHERE u.email = $1',
    [owner.email],
  );
  const signedIn = await browser.post(
    '/sign-in',
    { email: owner.email, password: owner.password },
    await browser.get('/sign-in'),
  );
  if (signedIn.location !== '/home') throw new Error(`sign-in answered ${signedIn.status}`);
  return { browser, owner, userId: rows[0]!.id, accountId: rows[0]!.account_id };
}
