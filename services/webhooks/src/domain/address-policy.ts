import ipaddr from 'ipaddr.js';

/**
 * What an IP address is, for the SSRF policy. `ipaddr.js` names most ranges, but not all of those a
 * webhook must never reach: it calls IPv4-compatible IPv6 (`::/96`, e.g. `::7f00:1` = 127.0.0.1) plain
 * `unicast`, so the embedded-IPv4 forms and the space outside global unicast are judged here explicitly.
 */
export type AddressCategory =
  | 'public'
  | 'loopback'
  | 'private'
  | 'unique_local'
  | 'carrier_grade_nat'
  | 'link_local'
  | 'metadata'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'ipv4_compatible'
  | 'ipv4_translated'
  | 'nat64'
  | '6to4'
  | 'teredo'
  | 'invalid';

/** Cloud metadata services, named explicitly even though their ranges are refused anyway. */
const METADATA_ADDRESSES = new Set(['169.254.169.254', '169.254.170.2', 'fd00:ec2::254', '100.100.100.200']);

/**
 * IPv6 forms that carry an IPv4 address the packet may end up at (translators, relays, tunnels): a
 * check of the IPv6 address alone says nothing about where they lead, so they are refused outright.
 * Order matters: `::` and `::1` (inside `::/96`) are decided before this list is read.
 */
const EMBEDDED_IPV4: readonly [ipaddr.IPv6, number, AddressCategory][] = (
  [
    ['::ffff:0:0:0', 96, 'ipv4_translated'], // RFC 6145/2765 translated
    ['64:ff9b::', 96, 'nat64'], // RFC 6052 well-known NAT64 prefix
    ['64:ff9b:1::', 48, 'nat64'], // RFC 8215 local-use NAT64
    ['2002::', 16, '6to4'],
    ['2001::', 32, 'teredo'],
    ['::', 96, 'ipv4_compatible'], // deprecated RFC 4291 IPv4-compatible
  ] as const
).map(([prefix, bits, category]) => [ipaddr.IPv6.parse(prefix), bits, category]);

/** IANA global unicast: everything outside it (other than the forms named above) is not a public host. */
const GLOBAL_UNICAST: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('2000::'), 3];

const IPV4_RANGES: Record<string, AddressCategory> = {
  unicast: 'public',
  loopback: 'loopback',
  private: 'private',
  carrierGradeNat: 'carrier_grade_nat',
  linkLocal: 'link_local',
  unspecified: 'unspecified',
  multicast: 'multicast',
  broadcast: 'broadcast',
};

const IPV6_RANGES: Record<string, AddressCategory> = {
  uniqueLocal: 'unique_local',
  linkLocal: 'link_local',
  multicast: 'multicast',
};

function classifyIPv4(address: ipaddr.IPv4): AddressCategory {
  if (METADATA_ADDRESSES.has(address.toString())) return 'metadata';
  return IPV4_RANGES[address.range()] ?? 'reserved';
}

function classifyIPv6(address: ipaddr.IPv6): AddressCategory {
  // IPv4-mapped (::ffff:a.b.c.d) is how a dual-stack socket dials IPv4: judge the IPv4 address.
  if (address.isIPv4MappedAddress()) return classifyIPv4(address.toIPv4Address());
  const range = address.range();
  if (range === 'unspecified') return 'unspecified';
  if (range === 'loopback') return 'loopback';
  for (const [prefix, bits, category] of EMBEDDED_IPV4) if (address.match(prefix, bits)) return category;
  if (METADATA_ADDRESSES.has(address.toString())) return 'metadata';
  const named = IPV6_RANGES[range];
  if (named) return named;
  if (!address.match(...GLOBAL_UNICAST) || range !== 'unicast') return 'reserved';
  return 'public';
}

/**
 * ipaddr.js reads `::a.b.c.d` as IPv4-mapped (`::ffff:a.b.c.d`) although it is IPv4-compatible, and
 * that is how getaddrinfo prints an AAAA record of `::808:808`: so the bytes come from the WHATWG URL
 * parser, which reads it right (`::808:808`), and only the canonical hex form reaches ipaddr.js.
 */
function parseIPv6(value: string): ipaddr.IPv6 | null {
  if (!ipaddr.IPv6.isValid(value)) return null;
  try {
    return ipaddr.IPv6.parse(new URL(`http://[${value}]/`).hostname.slice(1, -1));
  } catch {
    return null;
  }
}

/** The category of an IP address (literal, with or without brackets or a zone); `invalid` for anything else. */
export function classifyAddress(address: string): AddressCategory {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  // Only the dotted quad: `ipaddr.isValid` would also accept `0x7f.1` or `127.1`, which no resolver returns.
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return classifyIPv4(ipaddr.IPv4.parse(bare));
  const v6 = parseIPv6(bare);
  return v6 ? classifyIPv6(v6) : 'invalid';
}

/** Allowed besides public addresses when WEBHOOKS_ALLOW_LOCAL_TARGETS is on: what a developer's receiver uses. */
const LOCAL_CATEGORIES: ReadonlySet<AddressCategory> = new Set(['loopback', 'private', 'unique_local', 'carrier_grade_nat']);

const DESCRIPTIONS: Record<Exclude<AddressCategory, 'public'>, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  unique_local: 'a private (unique local) address',
  carrier_grade_nat: 'a carrier-grade NAT address',
  link_local: 'a link-local address',
  metadata: 'a cloud metadata address',
  unspecified: 'the unspecified address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved address',
  ipv4_compatible: 'an IPv4-compatible IPv6 address',
  ipv4_translated: 'an IPv4-translated IPv6 address',
  nat64: 'a NAT64 address',
  '6to4': 'a 6to4 address',
  teredo: 'a Teredo address',
  invalid: 'an invalid address',
};

/**
 * Why a webhook may not connect to this IP, or null when it may. Only globally routable unicast is
 * allowed; with `allowLocalTargets` (development and tests) also loopback, private, unique-local and
 * CGNAT. Metadata, link-local, unspecified, multicast, reserved and the IPv6 forms embedding an IPv4
 * address stay refused even then: no local receiver needs them, and they are how SSRF filters are dodged.
 */
export function addressProblem(address: string, allowLocalTargets = false): string | null {
  const category = classifyAddress(address);
  if (category === 'public') return null;
  if (allowLocalTargets && LOCAL_CATEGORIES.has(category)) return null;
  return DESCRIPTIONS[category];
}

export function isDisallowedAddress(address: string, allowLocalTargets = false): boolean {
  return addressProblem(address, allowLocalTargets) !== null;
}

export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(host.replace(/^\[|\]$/g, ''));
}

export class DisallowedAddressError extends Error {
  readonly code = 'ERR_DISALLOWED_ADDRESS';
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(`${host} resolves to ${address}, an address webhooks may not reach`);
    this.name = 'DisallowedAddressError';
  }
}

/**
 * URL rule at creation and update: https only unless local targets are allowed, no credentials, and a
 * host written as an IP literal must be one the sender may reach (names are judged at send time, on
 * the address actually dialled, which also catches DNS rebinding).
 */
export function urlProblem(url: string, allowLocalTargets: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be a valid URL';
  }
  if (parsed.username || parsed.password) return 'must not contain credentials';
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && allowLocalTargets)) return 'must be an https URL';
  // WHATWG URL parsing already turned `0x7f000001`, `2130706433` or `127.1` into `127.0.0.1`.
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (!isIpLiteral(host)) return null;
  const problem = addressProblem(host, allowLocalTargets);
  return problem ? `points to ${problem}` : null;
}
