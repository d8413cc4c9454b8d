import type { IncomingMessage } from 'node:http';
import ipaddr from 'ipaddr.js';
import proxyaddr from 'proxy-addr';

/** One spelling per address (an IPv4-mapped IPv6 address is its IPv4 one): throttle keys must not differ by it. */
const normalize = (address: string): string | null => {
  const bare = address.trim().replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return null;
  const parsed = ipaddr.parse(bare);
  return (
    parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed
  ).toString();
};

/**
 * Who is calling, as the configured trusted proxies report it (`proxy-addr`, express's own): the socket's
 * peer, or, when that peer is a trusted proxy, the nearest address in `X-Forwarded-For` that is not one.
 * Entries a client wrote itself sit left of the first untrusted hop and are never believed; a hop that is
 * not an address ends the walk at the last one that was.
 */
export class ClientAddresses {
  private readonly trust: (address: string, hop: number) => boolean;

  /** `cidrs`: e.g. `["10.0.0.0/8", "127.0.0.1/32"]`; a bare address means that one address. */
  constructor(cidrs: readonly string[]) {
    for (const cidr of cidrs) {
      const [address = '', bits] = cidr.split('/');
      if (!normalize(address) || (bits !== undefined && !/^\d{1,3}$/.test(bits))) {
        throw new Error(`not an IP address or CIDR range: ${cidr}`);
      }
    }
    this.trust = proxyaddr.compile([...cidrs]);
  }

  of(req: IncomingMessage): string {
    // From the socket outwards, up to and including the first hop that is not a trusted proxy.
    const chain = proxyaddr.all(req, this.trust);
    let client = 'unknown';
    for (const hop of chain) {
      const address = normalize(hop);
      if (!address) break;
      client = address;
    }
    return client;
  }
}
