import { Writable } from 'node:stream';
import { ConfigError, baseEnvSchema, createLogger, loadConfig, redactSecrets, scaled } from '../src';
import { z } from 'zod';

describe('configuration', () => {
  it('when a variable is missing or malformed, then the error names it', () => {
    const schema = baseEnvSchema.extend({ DATABASE_URL: z.string().url() });
    expect(() => loadConfig(schema, { INTERNAL_TOKEN: 'x'.repeat(20), DATABASE_URL: 'not a url' })).toThrow(ConfigError);
    try {
      loadConfig(schema, { DATABASE_URL: 'not a url', TIME_SCALE: '-1' });
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toContain('DATABASE_URL');
      expect(message).toContain('INTERNAL_TOKEN');
      expect(message).toContain('TIME_SCALE');
    }
  });

  it('when the environment is valid, then defaults apply', () => {
    const config = loadConfig(baseEnvSchema, { INTERNAL_TOKEN: 'x'.repeat(20) });
    expect(config.TIME_SCALE).toBe(1);
    expect(config.LOG_LEVEL).toBe('info');
  });
});

describe('secret redaction', () => {
  const secrets = [
    'sk_live_4eC39HqLyjWDarjtT1zdp7dcAbCdEfGh12345678901',
    'sk_test_abcDEF0123456789abcDEF0123456789abcDEF01234',
    'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    'lt_Ch7LorV87cFXsNOzu3fwu0abYn9hkXj8',
    'ho_pQ3vN8sLwT0aZk5yXr2uJ7bFc4dGh6eMi9oVn1tYs0w',
    '/confirm-email?token=dt_Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5',
  ];

  it('when a text carries secrets, then their values are replaced and their kind kept', () => {
    const text = `keys ${secrets.join(' and ')}`;
    const redacted = redactSecrets(text);
    for (const secret of secrets) expect(redacted).not.toContain(secret);
    expect(redacted).toContain('sk_live_[REDACTED]');
    expect(redacted).toContain('whsec_[REDACTED]');
    expect(redacted).toContain('token=dt_[REDACTED]');
  });

  it('when a log line would carry a secret in the message, a field, a nested object or an error, then it does not', () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(chunk.toString());
        callback();
      },
    });
    const logger = createLogger({ service: 'test', destination });
    logger.info(`created ${secrets[0]}`);
    logger.info({ key: secrets[1], nested: { deeper: [secrets[2]] } }, 'fields');
    logger.error({ err: new Error(`bad key ${secrets[1]}`) }, 'failure');
    logger.info({ req: { headers: { authorization: `Bearer ${secrets[0]}` } } }, 'request');
    const output = lines.join('');
    expect(lines.length).toBe(4);
    for (const secret of secrets) expect(output).not.toContain(secret);
    expect(output).toContain('[REDACTED]');
  });
});

describe('time scale', () => {
  it('when a period is scaled, then it is multiplied and never zero', () => {
    expect(scaled(10_000, 0.05)).toBe(500);
    expect(scaled(10, 0.0001)).toBe(1);
  });
});
