import { createHmac } from 'node:crypto';
import { isDisallowedAddress, urlProblem } from '../src/domain/address-policy';
import { buildEnvelope } from '../src/domain/envelope';
import { subscribed } from '../src/domain/fan-out';
import { MAX_ATTEMPTS, afterAttempt, circuitRequeueWait, timings } from '../src/domain/schedule';
import { signatureHeader } from '../src/domain/signature';
import { SecretBox } from '../src/adapters/secret-box';
import { classifyError } from '../src/adapters/http-sender';

describe('address policy', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '240.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fd00:ec2::254',
    'fc00::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.1.2.3',
    '64:ff9b::a00:1',
    '2002:7f00:1::',
    'not-an-ip',
  ])('when the address is %s, then it is refused', (address) => {
    expect(isDisallowedAddress(address)).toBe(true);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'when the address is public (%s), then it is allowed',
    (address) => {
      expect(isDisallowedAddress(address)).toBe(false);
    },
  );

  it('when local targets are not allowed, then only https URLs without credentials pass', () => {
    expect(urlProblem('https://example.com/h', false)).toBeNull();
    expect(urlProblem('http://example.com/h', false)).toBe('must be an https URL');
    expect(urlProblem('http://127.0.0.1/h', true)).toBeNull();
    expect(urlProblem('https://user:pw@example.com/h', true)).toBe('must not contain credentials');
    expect(urlProblem('ftp://example.com', true)).toBe('must be an https URL');
  });
});

describe('retry schedule', () => {
  const t = timings(1);
  it('when attempts 1–7 fail, then the waits are 10, 20, 40, 80, 160, 320, 640 s', () => {
    const waits = [1, 2, 3, 4, 5, 6, 7].map((n) => afterAttempt({ succeeded: false, attemptsUsed: n, automatic: true }, t));
    expect(waits).toEqual([10, 20, 40, 80, 160, 320, 640].map((s) => ({ kind: 'retry', waitMs: s * 1000 })));
  });
  it('when the 8th attempt fails, then the message is dead', () => {
    expect(afterAttempt({ succeeded: false, attemptsUsed: MAX_ATTEMPTS, automatic: true }, t)).toEqual({ kind: 'dead' });
  });
  it('when a test or redelivery fails, then there is no retry', () => {
    expect(afterAttempt({ succeeded: false, attemptsUsed: 1, automatic: false }, t)).toEqual({ kind: 'single_shot_failed' });
  });
  it('when TIME_SCALE is 0.05, then waits, receiver timeout and circuit period scale', () => {
    const s = timings(0.05);
    expect([s.waitAfter(1), s.waitAfter(7), s.receiverTimeoutMs, s.circuitOpenMs]).toEqual([500, 32_000, 500, 45_000]);
  });
  it('when the circuit skips an attempt, then it waits the same delay again (10 s before any attempt)', () => {
    expect(circuitRequeueWait(160_000, t)).toBe(160_000);
    expect(circuitRequeueWait(null, t)).toBe(10_000);
  });
});

describe('signing and envelope', () => {
  it('when signed with two secrets, then the header has t and one v1 per secret over "<t>.<body>"', () => {
    const body = buildEnvelope({ eventId: 'evt_1', type: 'test', object: { a: 1 } }, new Date('2026-11-22T00:00:00.000Z'));
    const header = signatureHeader(['whsec_a', 'whsec_b'], 1795305600, body);
    const expected = (s: string) => createHmac('sha256', s).update(`1795305600.${body}`).digest('hex');
    expect(header).toBe(`t=1795305600,v1=${expected('whsec_a')},v1=${expected('whsec_b')}`);
    expect(JSON.parse(body)).toEqual({
      id: 'evt_1',
      object: 'event',
      api_version: 'v1',
      type: 'test',
      created_at: '2026-11-22T00:00:00.000Z',
      data: { object: { a: 1 } },
    });
  });

  it('when a secret is sealed, then it opens with the same key only', () => {
    const box = new SecretBox(Buffer.alloc(32, 1));
    const sealed = box.seal('whsec_x');
    expect(sealed).not.toContain('whsec_x');
    expect(box.open(sealed)).toBe('whsec_x');
    expect(() => new SecretBox(Buffer.alloc(32, 2)).open(sealed)).toThrow();
  });

  it('when a secret was opened once, then a tampered sealed form is still refused and the kept one still opens', () => {
    const box = new SecretBox(Buffer.alloc(32, 1));
    const sealed = box.seal('whsec_kept');
    expect(box.open(sealed)).toBe('whsec_kept');
    const [version, iv, tag, data] = sealed.split('.');
    const flipped = Buffer.from(data!, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    expect(() => box.open([version, iv, tag, flipped.toString('base64url')].join('.'))).toThrow();
    expect(() => box.open([version, iv, Buffer.alloc(16).toString('base64url'), data].join('.'))).toThrow();
    expect(box.open(sealed)).toBe('whsec_kept');
  });

  it('when more secrets are opened than are kept, then every one of them still opens to its own value', () => {
    const box = new SecretBox(Buffer.alloc(32, 3));
    const sealed = Array.from({ length: 5000 }, (_, i) => box.seal(`whsec_${i}`));
    sealed.forEach((value, i) => expect(box.open(value)).toBe(`whsec_${i}`));
    expect(box.open(sealed[0]!)).toBe('whsec_0');
  });
});

describe('fan-out rule', () => {
  it('when both layers list the type and the endpoint is active, then it is delivered', () => {
    const endpoint = { events: ['verification_session.canceled'], status: 'active' };
    expect(subscribed('verification_session.canceled', ['verification_session.canceled'], endpoint)).toBe(true);
    expect(subscribed('verification_session.canceled', [], endpoint)).toBe(false);
    expect(subscribed('verification_session.approved', ['verification_session.approved'], endpoint)).toBe(false);
    expect(
      subscribed('verification_session.canceled', ['verification_session.canceled'], { ...endpoint, status: 'disabled' }),
    ).toBe(false);
  });
});

describe('error classification', () => {
  it.each([
    [Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), 'connection_refused'],
    [Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }), 'connection_reset'],
    [new DOMException('timed out', 'TimeoutError'), 'timeout'],
    [Object.assign(new Error('x'), { code: 'UND_ERR_HEADERS_TIMEOUT' }), 'timeout'],
    [Object.assign(new Error('wrap'), { cause: Object.assign(new Error('x'), { code: 'ENOTFOUND' }) }), 'dns_failure'],
    [Object.assign(new Error('x'), { code: 'ERR_DISALLOWED_ADDRESS' }), 'disallowed_address'],
    [new Error('strange'), 'network_error'],
  ])('when the error is %p, then the marker is %s', (error, marker) => {
    expect(classifyError(error).error).toBe(marker);
  });
});
