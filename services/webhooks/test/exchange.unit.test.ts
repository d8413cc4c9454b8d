import { circuitOf } from '../src/domain/circuit';
import { RESPONSE_BODY_LIMIT, bodyPrefix, keptHeaders, sentBody, sentRequest } from '../src/domain/exchange';
import { buildEnvelope } from '../src/domain/envelope';

const utf8 = (text: string) => Buffer.from(text, 'utf8');

describe("the receiver's body as the delivery log keeps it", () => {
  it('when the body is shorter than the limit, then it is kept whole', () => {
    expect(bodyPrefix(utf8('{"ok":true,"nombre":"Peña"}'))).toBe('{"ok":true,"nombre":"Peña"}');
  });

  it('when the limit falls inside a two-byte character, then the body is cut before that character', () => {
    const body = utf8(`a${'ñ'.repeat(5000)}`); // byte 4095 starts a ñ, byte 4096 continues it
    const kept = bodyPrefix(body);
    expect(kept).toBe(`a${'ñ'.repeat(2047)}`);
    expect(Buffer.byteLength(kept)).toBe(4095);
    expect(kept).not.toContain('\uFFFD');
  });

  it.each([
    ['a three-byte', '€', 3],
    ['a four-byte', '😀', 4],
  ])('when the limit falls inside %s character, then no half of it is kept', (_kind, char, size) => {
    for (let pad = 0; pad < size; pad += 1) {
      const kept = bodyPrefix(utf8(`${'x'.repeat(pad)}${char.repeat(2000)}`));
      expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(RESPONSE_BODY_LIMIT);
      expect(Buffer.byteLength(kept)).toBeGreaterThan(RESPONSE_BODY_LIMIT - size);
      expect(kept).not.toContain('\uFFFD');
    }
  });

  it('when the limit falls exactly between characters, then exactly the limit is kept', () => {
    expect(bodyPrefix(utf8('ab'.repeat(3000)))).toHaveLength(RESPONSE_BODY_LIMIT);
  });

  it('when the body is not UTF-8 or carries NUL, then it is still text PostgreSQL stores', () => {
    const kept = bodyPrefix(Buffer.from([0x41, 0x00, 0xff, 0xfe, 0x42]));
    expect(kept).toBe('A\uFFFD\uFFFD\uFFFDB');
  });
});

describe("the receiver's headers as the delivery log keeps them", () => {
  it('when a header repeats or is huge, then it is joined and cut, and at most 64 are kept', () => {
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`X-H${i}`, 'v']));
    expect(Object.keys(keptHeaders(many))).toHaveLength(64);
    expect(keptHeaders({ 'Set-Cookie': ['a=1', 'b=2'], 'X-Long': 'z'.repeat(5000), Gone: undefined })).toEqual({
      'set-cookie': 'a=1, b=2',
      'x-long': 'z'.repeat(1024),
    });
  });
});

describe('the request an attempt sent, rebuilt', () => {
  const event = { id: 'evt_1', type: 'verification_session.approved' as const };
  const data = { id: 'vs_1', object: 'verification_session', result: { outcome: 'approved', document: { number: '1' } } };
  const sentAt = new Date('2026-11-30T12:00:00.123Z');
  const headers = { 'x-service-signature': 't=1,v1=abc' };

  it('when the event is unchanged, then the body is byte for byte what buildEnvelope made at that moment', () => {
    const links = [{ kind: 'front', url: 'https://flow.example/e/1', expires_at: '2026-11-30T13:00:00.000Z' }];
    const sent = buildEnvelope({ eventId: event.id, type: event.type, object: { ...data, evidence_links: links } }, sentAt);
    const request = sentRequest(event, { sentAt, requestHeaders: headers, evidenceLinks: links as never, eventData: data });
    expect(request).toEqual({ sentAt, headers, body: sent, bodyAsSent: true });
    expect(sentBody({ ...event, data }, { sentAt, evidenceLinks: null })).toBe(
      buildEnvelope({ eventId: event.id, type: event.type, object: data }, sentAt),
    );
  });

  it('when retention removed the document after the attempt, then the body is marked as not the one sent', () => {
    const removed = { ...data, result: { outcome: 'approved', document_removed_at: '2026-12-30T00:00:00.000Z' } };
    const later = sentRequest(event, { sentAt, requestHeaders: headers, evidenceLinks: null, eventData: removed });
    expect(later?.bodyAsSent).toBe(false);
    expect(later?.body).not.toContain('"number"');
    const afterRemoval = sentRequest(event, {
      sentAt: new Date('2027-01-01T00:00:00.000Z'),
      requestHeaders: headers,
      evidenceLinks: null,
      eventData: removed,
    });
    expect(afterRemoval?.bodyAsSent).toBe(true);
  });

  it('when nothing was sent, then there is no request', () => {
    expect(sentRequest(event, { sentAt: null, requestHeaders: null, evidenceLinks: null, eventData: data })).toBeNull();
  });
});

describe("an endpoint's circuit", () => {
  const now = new Date('2026-11-30T12:00:00.000Z');
  it('when never opened, open until later, or past its period, then closed, open or half-open', () => {
    expect(circuitOf({ circuitOpenUntil: null, consecutiveFailures: 2 }, now).state).toBe('closed');
    expect(circuitOf({ circuitOpenUntil: new Date('2026-11-30T12:10:00.000Z'), consecutiveFailures: 0 }, now)).toEqual({
      state: 'open',
      openUntil: new Date('2026-11-30T12:10:00.000Z'),
      consecutiveFailures: 0,
    });
    expect(circuitOf({ circuitOpenUntil: new Date('2026-11-30T11:59:59.000Z'), consecutiveFailures: 0 }, now).state).toBe(
      'half_open',
    );
  });
});
