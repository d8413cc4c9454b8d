// First: starts tracing (when configured) before the modules it instruments are loaded.
import './tracing';
import { DOMAIN_EVENTS, DOMAIN_EVENT_DATA_SCHEMAS, RouteTable, type DomainEvent } from '@idv/contracts';
import { AddressThrottle, ClientAddresses, checkRedis, connectBroker, createRedis, runMain, startRuntime } from '@idv/kit';
import { KeyResolver } from './adapters/key-resolver';
import { RateLimiter } from './adapters/rate-limiter';
import { Upstreams } from './adapters/upstreams';
import { createApp } from './app';
import { readConfig } from './config';

const SERVICE = 'gateway';
const VERSION = '0.1.0';

runMain(SERVICE, async () => {
  const config = readConfig();
  const runtime = startRuntime(SERVICE, config);
  const { logger, metrics, lifecycle } = runtime;

  const redis = createRedis(config.REDIS_URL);
  lifecycle.onStop('redis', async () => {
    await redis.quit().catch(() => undefined);
  });
  const resolver = new KeyResolver(config.KEYS_URL, config.INTERNAL_TOKEN, config.KEY_CACHE_TTL_MS, logger);
  lifecycle.onStop('keys-client', () => resolver.close());
  const upstreams = new Upstreams({ sessions: config.SESSIONS_URL, webhooks: config.WEBHOOKS_URL });
  lifecycle.onStop('upstreams', () => upstreams.close());

  const broker = connectBroker(runtime, { url: config.AMQP_URL, namespace: config.BROKER_NAMESPACE });
  // Each replica listens on its own queue, so a revocation evicts the key from every replica's cache.
  await broker.consume({
    queue: 'gateway.key-cache',
    exclusive: true,
    bindings: [DOMAIN_EVENTS.apiKeyRevoked, DOMAIN_EVENTS.accountStatusChanged],
    onStart: () => resolver.clear(),
    handler: (event: DomainEvent) => {
      if (event.type === DOMAIN_EVENTS.apiKeyRevoked) {
        const revoked = DOMAIN_EVENT_DATA_SCHEMAS[DOMAIN_EVENTS.apiKeyRevoked].safeParse(event.data);
        if (!revoked.success) return Promise.resolve('dead');
        resolver.evictKey(revoked.data.secret_hash);
        resolver.evictAccount(revoked.data.account_id);
        logger.info({ event: event.type, account_id: revoked.data.account_id, key_id: revoked.data.key_id }, 'key cache evicted');
      } else {
        const changed = DOMAIN_EVENT_DATA_SCHEMAS[DOMAIN_EVENTS.accountStatusChanged].safeParse(event.data);
        if (!changed.success) return Promise.resolve('dead');
        resolver.evictAccount(changed.data.account_id);
        logger.info({ event: event.type, account_id: changed.data.account_id }, 'key cache evicted');
      }
      return Promise.resolve('ack');
    },
  });

  const limiterFailures = metrics.counter(
    'gateway_rate_limiter_failures_total',
    'Requests let through because Redis could not answer',
  );
  const app = createApp({
    logger,
    metrics,
    routes: new RouteTable(),
    resolver,
    limiter: new RateLimiter(redis, config.RATE_LIMIT_PER_SECOND, config.RATE_LIMIT_BURST, (error) => {
      limiterFailures.inc();
      logger.error({ err: error }, 'rate limiter unavailable; letting the request through');
    }),
    upstreams,
    throttle: new AddressThrottle(
      redis,
      {
        auth_failure: { perSecond: config.THROTTLE_AUTH_FAILURES_PER_SECOND, burst: config.THROTTLE_AUTH_FAILURES_BURST },
        qr: { perSecond: config.THROTTLE_QR_PER_SECOND, burst: config.THROTTLE_QR_BURST },
      },
      { logger, metrics },
    ),
    clientAddresses: new ClientAddresses(config.TRUSTED_PROXIES),
    internalToken: config.INTERNAL_TOKEN,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    version: VERSION,
    ratePerSecond: config.RATE_LIMIT_PER_SECOND,
    corsOrigins: config.CORS_ORIGINS,
    isShuttingDown: () => lifecycle.shuttingDown,
    readiness: {
      redis: () => checkRedis(redis),
      rabbitmq: () => broker.check(),
    },
  });
  await lifecycle.listen(app, config.PORT, config.HOST);
  return lifecycle;
});
