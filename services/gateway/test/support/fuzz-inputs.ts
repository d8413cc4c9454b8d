import fc from 'fast-check';

/**
 * Input generators for the public-API fuzz suite (`fuzz.e2e.test.ts`): hostile strings, numbers JSON
 * cannot round-trip, wrong types, deep nesting, malformed percent-encoding and header values, each
 * mixed with valid values so requests get past the first check often enough to reach the handlers.
 */

/** JSON text written as is (1e400, 30 digits, -0, 5,000 levels of nesting): JSON.stringify cannot produce it. */
export class RawJson {
  constructor(readonly text: string) {}
  toString(): string {
    return `RawJson(${this.text.length > 60 ? `${this.text.slice(0, 60)}…` : this.text})`;
  }
}

export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}:${toJsonText(item)}`)
      .join(',')}}`;
  }
  // JSON.stringify escapes lone surrogates as \udxxx: exactly what a hostile client sends.
  return JSON.stringify(value) ?? 'null';
}

const hex = (byte: number) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;

/**
 * Percent-encodes any JavaScript string, lone surrogates included (as the 3-byte sequences a lax
 * encoder emits, which are not valid UTF-8): encodeURIComponent would throw on them.
 */
export function percentEncode(value: string): string {
  let out = '';
  for (const char of value) {
    const cp = char.codePointAt(0)!;
    if (cp >= 0xd800 && cp <= 0xdfff) out += [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)].map(hex).join('');
    else out += encodeURIComponent(char);
  }
  return out;
}

const SPECIAL_CHARACTERS = [
  '\u0000',
  '\ud800',
  '\udfff',
  '\ud83d',
  '\ufeff',
  '\u2028',
  '\u0085',
  '\u202e',
  '\uffff',
  '\u0007',
  '\u001b',
  '"',
  '\\',
  '%',
  "'",
  '\r\n',
  '😀',
  'ñ',
  'e\u0301',
];

const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));

/** Strings with NUL, unpaired surrogates, controls and astral characters, up to a few KiB (fits a URL). */
/** The characters PostgreSQL cannot store: the cause of most 500s a hostile string can trigger. */
const unstorableCharacter = fc.oneof(
  { weight: 3, arbitrary: fc.constant('\u0000') },
  { weight: 2, arbitrary: fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff') },
);

export const shortNastyString: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.string({ maxLength: 12 }), unstorableCharacter, fc.string({ maxLength: 12 }))
      .map(([before, special, after]) => `${before}${special}${after}`),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.string({ maxLength: 12 }), fc.constantFrom(...SPECIAL_CHARACTERS), fc.string({ maxLength: 12 }))
      .map(([before, special, after]) => `${before}${special}${after}`),
  },
  { weight: 2, arbitrary: fc.string({ unit: fc.oneof(anyCodeUnit, fc.constantFrom(...SPECIAL_CHARACTERS)), maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom(255, 256, 500, 501, 2048).map((length) => 'x'.repeat(length)) },
);

/** The same, plus lengths far past every bound (for bodies: a request head over 16 KiB is node's 431, not ours). */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 9, arbitrary: shortNastyString },
  { weight: 1, arbitrary: fc.constantFrom(2049, 70_000).map((length) => 'x'.repeat(length)) },
);

/** Numbers JSON.parse turns into Infinity, -0 or imprecise integers, and ints written as floats. */
export const awkwardNumber: fc.Arbitrary<unknown> = fc.oneof(
  fc
    .constantFrom(
      '1e400',
      '-1e400',
      '1e-400',
      '123456789012345678901234567890',
      '-0',
      '0.0',
      '24.0',
      '1.5',
      '1E2',
      '9007199254740993',
      '-9007199254740993',
    )
    .map((text) => new RawJson(text)),
  fc.double(),
  fc.integer(),
);

/** Arrays or objects nested up to 20,000 levels. */
export const deepNesting: fc.Arbitrary<RawJson> = fc
  .tuple(fc.constantFrom(64, 1000, 5000, 20_000), fc.boolean())
  .map(([depth, arrays]) =>
    arrays
      ? new RawJson(`${'['.repeat(depth)}1${']'.repeat(depth)}`)
      : new RawJson(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
  );

export const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, '', [], {}),
  fc.jsonValue({ maxDepth: 3 }),
);

/** `arbitrary` `present` times in `present + 1`, else undefined (fc.option leans to nil in the first, small runs). */
export function sometimes<T>(arbitrary: fc.Arbitrary<T>, present: number): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: present, arbitrary }, { weight: 1, arbitrary: fc.constant(undefined) });
}

/** Something no field should accept: hostile text, numbers JSON cannot round-trip, wrong types, deep nesting. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: nastyString },
  { weight: 1, arbitrary: awkwardNumber },
  { weight: 1, arbitrary: wrongType },
  { weight: 1, arbitrary: deepNesting },
);

/** A body field: values it should accept, and (optionally) hostile values particular to it. */
export interface FieldSpec {
  valid: fc.Arbitrary<unknown>;
  hostile?: fc.Arbitrary<unknown>;
}

const hostileFor = (spec: FieldSpec) =>
  spec.hostile ? fc.oneof({ weight: 2, arbitrary: spec.hostile }, { weight: 3, arbitrary: hostileValue }) : hostileValue;

const ABSENT = Symbol('absent');

/** Each field present four times in five, with a value from `value` (oneof: fc.option leans to nil in small runs). */
function someFields(fields: Record<string, FieldSpec>, value: (name: string, spec: FieldSpec) => fc.Arbitrary<unknown>) {
  return fc
    .record(
      Object.fromEntries(
        Object.entries(fields).map(([name, spec]) => [
          name,
          fc.oneof({ weight: 4, arbitrary: value(name, spec) }, { weight: 1, arbitrary: fc.constant(ABSENT) }),
        ]),
      ),
    )
    .map((body) => Object.fromEntries(Object.entries(body).filter(([, item]) => item !== ABSENT)));
}

/**
 * A body for a route: mostly valid fields with exactly one hostile (so the hostile value gets past
 * the other checks and reaches the handler and the database), sometimes everything random, now and
 * then an unknown key.
 */
export function objectBody(fields: Record<string, FieldSpec>): fc.Arbitrary<Record<string, unknown>> {
  const names = Object.keys(fields);
  // noBias: constantFrom favours its first value in the first runs, and every field deserves its turn.
  const oneHostile = fc.noBias(fc.constantFrom(...names)).chain((target) =>
    fc
      .tuple(
        someFields(fields, (name, spec) => (name === target ? fc.constant(ABSENT) : spec.valid)),
        hostileFor(fields[target]!),
      )
      .map(([body, hostile]) => ({ ...body, [target]: hostile })),
  );
  const known = fc.oneof(
    { weight: 4, arbitrary: oneHostile },
    { weight: 2, arbitrary: someFields(fields, (_name, spec) => spec.valid) },
    {
      weight: 1,
      arbitrary: someFields(fields, (_name, spec) =>
        fc.oneof({ weight: 2, arbitrary: spec.valid }, { weight: 1, arbitrary: hostileFor(spec) }),
      ),
    },
  );
  const extra = fc.oneof(
    { weight: 7, arbitrary: fc.constant(undefined) },
    fc.dictionary(fc.oneof(fc.constantFrom('__proto__', 'constructor', 'id', 'secret', 'account_id'), nastyString), wrongType, {
      minKeys: 1,
      maxKeys: 2,
    }),
  );
  return fc.tuple(known, extra).map(([body, more]) => ({ ...body, ...more }));
}

/** Raw bodies that are not the route's object: random JSON, text, bytes, broken JSON, too large. */
export const otherBody: fc.Arbitrary<string | Buffer> = fc.oneof(
  fc.jsonValue().map((value) => JSON.stringify(value)),
  nastyString,
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
  fc.constantFrom(
    '',
    '{',
    '{"a":',
    'null',
    '"x"',
    '[]',
    'true',
    ' ',
    '{}{}',
    '\ufeff{}',
    '{"a":1,"a":2}',
    '{"project_id":"prj_x",}',
    '{"a":"\\ud800"}',
    '{"a":"\\u0000"}',
    '{"a":"\\x"}',
  ),
  deepNesting.map((raw) => raw.text),
  fc.constant(`{"description":"${'x'.repeat(300 * 1024)}"}`),
);

/** Characters a client can put in a header value (undici refuses the rest, as does node's parser). */
const headerUnit = fc
  .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constant(0x09))
  .map((code) => String.fromCharCode(code));

export const headerString = (maxLength = 40) => fc.string({ unit: headerUnit, maxLength });

export const contentType: fc.Arbitrary<string | undefined> = sometimes(
  fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8') },
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        'APPLICATION/JSON',
        'application/json; charset=latin1',
        'application/json; charset=utf-16',
        'application/json; charset=nope',
        'application/json;charset="utf-8"',
        'application/json; charset=',
        'application/json; foo',
        'application/problem+json',
        'application/merge-patch+json',
        'text/plain',
        'text/json',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/octet-stream',
        '*/*',
        ';',
        'json',
      ),
    },
    { weight: 1, arbitrary: headerString() },
  ),
  8,
);

export const idempotencyKey: fc.Arbitrary<string | undefined> = sometimes(
  fc.oneof(headerString(300), fc.constantFrom('', ' ', 'a', 'é', 'x'.repeat(255), 'x'.repeat(256))),
  1,
);

/** Path pieces that decode to nothing valid: lone `%`, bad hex, encoded NUL, overlong UTF-8, dots, slashes. */
const RAW_PATH_FRAGMENTS = [
  '%',
  '%zz',
  '%0',
  '%00',
  '%FF',
  '%C0%AF',
  '%ED%A0%80',
  '..',
  '.',
  '%2F',
  '%2e%2e',
  '%5C',
  ';',
  '@',
  ':',
  '*',
  '+',
  '~',
  "'",
  '(',
  '!',
  '$',
  ',',
  '=',
];

/** A path segment or query component, already percent-encoded (possibly badly, on purpose). */
export const nastyComponent: fc.Arbitrary<string> = fc
  .array(fc.oneof(shortNastyString.map(percentEncode), fc.constantFrom(...RAW_PATH_FRAGMENTS)), { minLength: 1, maxLength: 3 })
  .map((parts) => parts.join(''));

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const ulidLike: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: fc.constantFrom(...CROCKFORD), minLength: 26, maxLength: 26 }),
  fc.string({ unit: fc.constantFrom(...CROCKFORD.toLowerCase(), 'I', 'L', 'O', 'U'), minLength: 20, maxLength: 30 }),
);

/** An id path parameter: often a real one of the tenant, else well-formed unknown, wrong prefix or garbage. */
export function idComponent(prefix: string, real: readonly string[]): fc.Arbitrary<string> {
  const others = ['vs_', 'whep_', 'whd_', 'prj_', 'acc_', 'lt_', 'key_'].filter((p) => p !== prefix);
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...real) },
    { weight: 2, arbitrary: ulidLike.map((suffix) => `${prefix}${suffix}`) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...others), ulidLike).map(([p, suffix]) => `${p}${suffix}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(prefix, `${prefix}${'0'.repeat(26)}`, `${prefix}${'Z'.repeat(26)}`, 'x'.repeat(3000)),
    },
    { weight: 2, arbitrary: nastyComponent },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...real), nastyComponent).map(([id, tail]) => `${id}${tail}`) },
  );
}

/** Cursors a client could forge: old unsigned `[createdAt, id]` shapes with impossible dates and NULs. */
export const FORGED_CURSOR_PAYLOADS: readonly unknown[] = [
  ['0', 'vs_a'],
  ['2020-02-30T00:00:00.000Z', 'vs_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6'],
  ['+275760-09-13T00:00:00.000Z', 'vs_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6'],
  ['2026-11-22T00:00:00.000Z', 'vs_\u0000'],
  ['2026-11-22T00:00:00.000Z\u0000', 'whep_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6'],
  ['2026-11-22', 'whd_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6'],
  ['1e400', 'vs_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6'],
  ['2026-11-22T00:00:00.000Z', 'x'.repeat(300)],
  ['2026-11-22T00:00:00.000Z', '\ud800'],
  ['2026-11-22T00:00:00.000Z', 1],
  { createdAt: '2026-11-22T00:00:00.000Z', id: 'vs_01JD3Z8Q5X8R0VQ1T7W9Y2K4M6' },
];

export const forgedCursor: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...FORGED_CURSOR_PAYLOADS).map((payload) => Buffer.from(JSON.stringify(payload)).toString('base64url')),
  fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.'), maxLength: 120 }),
);

/** A real cursor with one character changed, one added or the tag cut. */
export function tamperedCursor(real: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc
      .tuple(fc.nat({ max: real.length - 1 }), fc.constantFrom(...'AZaz09-_.'))
      .map(([at, char]) => `${real.slice(0, at)}${char === real[at] ? (char === 'A' ? 'B' : 'A') : char}${real.slice(at + 1)}`),
    fc.constantFrom(`${real}A`, real.slice(0, -1), real.split('.')[0] ?? real, `${real}.${real}`),
  );
}

export const monthValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '2026-11',
    '2026-13',
    '2026-00',
    '0000-01',
    '9999-12',
    '1970-01',
    '2026-1',
    '202611',
    '2026-11-01',
    '+12026-01',
    '',
  ),
  fc
    .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }))
    .map(([year, month]) => `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}`),
  shortNastyString,
);

export const limitValue: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: -5, max: 200 }).map(String),
  fc.constantFrom('', '1.5', '1e1', '0x10', ' 5', '5 ', '+5', '-0', 'NaN', 'Infinity', '99999999999999999999', '١٠', '1,2'),
  shortNastyString,
);

/** `name=value` pairs joined into a query string (`?…`), with repeated and unknown names now and then. */
export function queryString(values: Record<string, fc.Arbitrary<string>>): fc.Arbitrary<string> {
  const names = Object.keys(values);
  const pair = fc.oneof(
    {
      weight: 5,
      arbitrary: names.length
        ? fc.constantFrom(...names).chain((name) => values[name]!.map((value) => `${name}=${percentEncode(value)}`))
        : fc.constant('a=1'),
    },
    {
      weight: 1,
      arbitrary: names.length
        ? fc.tuple(fc.constantFrom(...names), nastyComponent).map(([name, value]) => `${name}=${value}`)
        : nastyComponent,
    },
    { weight: 1, arbitrary: fc.tuple(nastyComponent, nastyComponent).map(([name, value]) => `${name}=${value}`) },
    { weight: 1, arbitrary: fc.constantFrom('limit[]=1', 'cursor[a]=b', '=', '&', 'limit', '__proto__=1', 'month') },
  );
  return fc.array(pair, { maxLength: 4 }).map((pairs) => (pairs.length ? `?${pairs.join('&')}` : ''));
}
