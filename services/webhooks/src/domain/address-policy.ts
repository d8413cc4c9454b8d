import ipaddr from 'ipaddr.js';

/** Cloud metadata services, named explicitly even though their ranges are refused anyway. */
const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200']);

/**
 * Whether a webhook may connect to this IP. Only globally routable unicast is allowed: loopback,
 * private, link-local, CGNAT, multicast, unspecified, broadcast, reserved, unique-local, metadata and
 * IPv6 forms embedding an IPv4 address (mapped, 6to4, Teredo, NAT64) are refused.
 */
export function isDisallowedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return true;
  let parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  if (METADATA_ADDRESSES.has(parsed.toString())) return true;
  return parsed.range() !== 'unicast';
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

/** URL rule at creation and update: https only unless local targets are allowed; no credentials. */
export function urlProblem(url: string, allowLocalTargets: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be a valid URL';
  }
  if (parsed.username || parsed.password) return 'must not contain credentials';
  if (parsed.protocol === 'https:') return null;
  if (parsed.protocol === 'http:' && allowLocalTargets) return null;
  return 'must be an https URL';
}
