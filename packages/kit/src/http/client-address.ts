import type { IncomingMessage } from 'node:http';
import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

const normalize = (address: string): ipaddr.IPv4 | ipaddr.IPv6 | null => {
  const bare = address.trim().replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return null;
  const parsed = ipaddr.parse(bare);
  return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()
    ? (parsed as ipaddr.IPv6).toIPv4Address()
    : parsed;
};

/**
 * Who is calling, as the configured trusted proxies report it: the socket's peer, or, when that peer
 * is a trusted proxy, the nearest address in `X-Forwarded-For` that is not one. Entries a client
 * wrote itself sit left of the first untrusted hop and are never believed.
 */
export class ClientAddresses {
  private readonly trusted: Range[];

  /** `cidrs`: e.g. `["10.0.0.0/8", "127.0.0.1/32"]`; a bare address means that one address. */
  constructor(cidrs: readonly string[]) {
    this.trusted = cidrs.map((cidr) => {
      if (cidr.includes('/')) return ipaddr.parseCIDR(cidr);
      const address = normalize(cidr);
      if (!address) throw new Error(`not an IP address or CIDR range: ${cidr}`);
      return [address, address.kind() === 'ipv4' ? 32 : 128] as Range;
    });
  }

  private isTrusted(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
    return this.trusted.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));
  }

  of(req: IncomingMessage): string {
    const peer = normalize(req.socket.remoteAddress ?? '');
    if (!peer) return 'unknown';
    if (!this.isTrusted(peer)) return peer.toString();
    const header = req.headers['x-forwarded-for'];
    const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').reverse();
    let client = peer;
    for (const hop of hops) {
      const address = normalize(hop);
      if (!address) break;
      client = address;
      if (!this.isTrusted(address)) break;
    }
    return client.toString();
  }
}
