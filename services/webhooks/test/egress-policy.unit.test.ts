import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { parseAllDocuments } from 'yaml';
import { classifyAddress, urlProblem } from '../src/domain/address-policy';

/**
 * The webhooks' egress NetworkPolicy (deploy/k8s/base/network-policy.yaml) against the API's rule for endpoint
 * URLs (address-policy.ts): every receiver the API accepts (any https URL: any port, a public IPv4 or IPv6
 * address) is let through by the policy, so a delivery is never silently dropped by the network; and the
 * ranges the API refuses (private, loopback, metadata…) are cut by the policy too (docs/decisions.md).
 */
interface PortRule {
  protocol?: string;
  port?: number | string;
  endPort?: number;
}
interface EgressRule {
  to?: { ipBlock?: { cidr: string; except?: string[] } }[];
  ports?: PortRule[];
}

const ROOT = path.join(__dirname, '..', '..', '..');
const policies = parseAllDocuments(readFileSync(path.join(ROOT, 'deploy/k8s/base/network-policy.yaml'), 'utf8'))
  .map((doc) => doc.toJSON() as Record<string, any>)
  .filter((doc) => doc?.kind === 'NetworkPolicy');
/** The egress rules of the policies that select the webhooks' pods and carry ipBlocks (the receivers'). */
const receiverRules: EgressRule[] = policies
  .filter((policy) => policy.spec?.podSelector?.matchLabels?.['app.kubernetes.io/name'] === 'webhooks')
  .flatMap((policy) => (policy.spec?.egress ?? []) as EgressRule[])
  .filter((rule) => (rule.to ?? []).some((peer) => peer.ipBlock));

const inCidr = (address: ipaddr.IPv4 | ipaddr.IPv6, cidr: string) => {
  const [network, bits] = ipaddr.parseCIDR(cidr);
  return network.kind() === address.kind() && address.match([network, bits] as never);
};
const portAllowed = (rules: PortRule[] | undefined, port: number) =>
  !rules ||
  rules.length === 0 ||
  rules.some(
    (rule) =>
      (rule.protocol ?? 'TCP') === 'TCP' &&
      typeof rule.port === 'number' &&
      port >= rule.port &&
      port <= (rule.endPort ?? rule.port),
  );

/** Whether the policy lets the webhooks' pods open a TCP connection to that address and port. */
function policyAllows(address: string, port: number): boolean {
  let parsed = ipaddr.parse(address);
  // A dual-stack socket dials an IPv4-mapped address as the IPv4 address: that is what the network sees.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return receiverRules.some(
    (rule) =>
      portAllowed(rule.ports, port) &&
      (rule.to ?? []).some(
        ({ ipBlock }) =>
          ipBlock !== undefined && inCidr(parsed, ipBlock.cidr) && !(ipBlock.except ?? []).some((c) => inCidr(parsed, c)),
      ),
  );
}
const accepted = (url: string) => urlProblem(url, false) === null;

const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((bytes) => bytes.join('.'));
/** Mostly global unicast (2000::/3), where the public addresses are, and anything else now and then. */
const ipv6 = fc
  .tuple(
    fc.oneof(fc.integer({ min: 0x2000, max: 0x3fff }), fc.nat(0xffff)),
    fc.array(fc.nat(0xffff), { minLength: 7, maxLength: 7 }),
  )
  .map(([first, rest]) => new ipaddr.IPv6([first, ...rest]).toString());
const port = fc.integer({ min: 1, max: 65535 });

it('has receiver rules to check', () => {
  expect(receiverRules.length).toBeGreaterThan(0);
});

it('when the API accepts an https endpoint on any port, then the policy lets it through (IPv4 and IPv6)', () => {
  expect(accepted('https://hooks.example.com:8443/idv')).toBe(true);
  for (const [address, url] of [
    ['203.0.114.7', 'https://203.0.114.7:8443/idv'],
    ['8.8.8.8', 'https://8.8.8.8/idv'],
    ['2606:4700::1111', 'https://[2606:4700::1111]:8443/idv'],
    ['2a00:1450:4001:80b::200e', 'https://[2a00:1450:4001:80b::200e]/idv'],
  ] as const) {
    expect(accepted(url)).toBe(true);
    expect(policyAllows(address, Number(new URL(url).port || 443))).toBe(true);
  }
  fc.assert(
    fc.property(fc.oneof(ipv4, ipv6), port, (address, destinationPort) => {
      const host = address.includes(':') ? `[${address}]` : address;
      if (!accepted(`https://${host}:${destinationPort}/hook`)) return true;
      return policyAllows(address, destinationPort);
    }),
    { numRuns: 3000 },
  );
});

it('when an address is one the API refuses as local, then the policy refuses it too', () => {
  for (const address of [
    '10.1.2.3',
    '172.20.0.5',
    '192.168.1.10',
    '100.64.0.1',
    '127.0.0.1',
    '169.254.169.254',
    '0.0.0.0',
    '::1',
    'fd00:ec2::254',
    'fc00::1',
    'fe80::1',
    '::ffff:10.0.0.1',
    '2002:a00:1::1',
    '2001::1',
  ]) {
    expect(classifyAddress(address)).not.toBe('public');
    expect([address, policyAllows(address, 443), policyAllows(address, 8443)]).toEqual([address, false, false]);
  }
});
