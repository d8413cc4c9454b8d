/** Where the stack under test is, as global setup (or the caller) put it in the environment. */
export interface TestEnv {
  gatewayUrl: string;
  keysUrl: string;
  sessionsUrl: string;
  webhooksUrl: string;
  flowUrl: string;
  dashboardUrl: string;
  internalToken: string;
  databaseUrl: string;
  amqpUrl: string;
  redisUrl: string;
  namespace: string;
  timeScale: number;
}

function need(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests through the README's test command or jest's global setup`);
  return value;
}

export function testEnv(): TestEnv {
  return {
    gatewayUrl: need('GATEWAY_URL'),
    keysUrl: need('KEYS_URL'),
    sessionsUrl: need('SESSIONS_URL'),
    webhooksUrl: need('WEBHOOKS_URL'),
    flowUrl: need('FLOW_URL'),
    dashboardUrl: need('DASHBOARD_URL'),
    internalToken: need('INTERNAL_TOKEN'),
    databaseUrl: need('DATABASE_URL'),
    amqpUrl: need('AMQP_URL'),
    redisUrl: need('REDIS_URL'),
    namespace: need('BROKER_NAMESPACE'),
    timeScale: Number(process.env.TIME_SCALE ?? '1'),
  };
}

/** Variables a stack exports for its tests. */
export const STACK_ENV_NAMES = [
  'GATEWAY_URL',
  'KEYS_URL',
  'SESSIONS_URL',
  'WEBHOOKS_URL',
  'FLOW_URL',
  'DASHBOARD_URL',
  'INTERNAL_TOKEN',
  'DATABASE_URL',
  'AMQP_URL',
  'REDIS_URL',
  'BROKER_NAMESPACE',
  'TIME_SCALE',
] as const;
