import net from 'node:net';
import { HttpSender } from '../src/adapters/http-sender';
import { attemptOutcome } from '../src/domain/delivery-decision';
import { addressProblem, classifyAddress, isDisallowedAddress, urlProblem } from '../src/domain/address-policy';

describe('address policy: IPv6 forms that embed an IPv4 address', () => {
  it.each([
    ['::7f00:1', 'ipv4_compatible'], // 127.0.0.1, once dialled by the sender
    ['::a9fe:a9fe', 'ipv4_compatible'], // 169.254.169.254
    ['::127.0.0.1', 'ipv4_compatible'],
    ['::808:808', 'ipv4_compatible'], // even a public IPv4 inside: the form itself is refused
    ['::8.8.8.8', 'ipv4_compatible'], // how getaddrinfo prints it; ipaddr.js alone reads it as ::ffff:8.8.8.8
    ['::ffff:0:7f00:1', 'ipv4_translated'],
    ['::ffff:0:808:808', 'ipv4_translated'],
    ['64:ff9b::7f00:1', 'nat64'],
    ['64:ff9b::808:808', 'nat64'],
    ['64:ff9b:1::a00:1', 'nat64'],
    ['2002:7f00:1::', '6to4'],
    ['2002:808:808::1', '6to4'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
    ['2001::1', 'teredo'],
  ])('when the address is %s, then it is %s and refused in every mode', (address, category) => {
    expect(classifyAddress(address)).toBe(category);
    expect(isDisallowedAddress(address)).toBe(true);
    expect(isDisallowedAddress(address, true)).toBe(true);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:8.8.8.8', 'public'],
  ])('when an IPv4-mapped address is %s, then it is judged as the IPv4 address it maps (%s)', (address, category) => {
    expect(classifyAddress(address)).toBe(category);
  });
});

describe('address policy: other ranges', () => {
  it.each([
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['::1:0:0:1', 'reserved'], // ::/8, outside global unicast though ipaddr.js calls it unicast
    ['100::1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['fec0::1', 'reserved'],
    ['fe80::1%eth0', 'link_local'],
    ['fd00:ec2::254', 'metadata'],
    ['fc00::1', 'unique_local'],
    ['ff02::1', 'multicast'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['169.254.1.1', 'link_local'],
    ['100.64.0.1', 'carrier_grade_nat'],
    ['192.0.0.170', 'reserved'],
    ['192.88.99.1', 'reserved'],
    ['0x7f000001', 'invalid'], // only canonical forms: the URL parser normalises hosts before this
    ['127.1', 'invalid'],
    ['not-an-ip', 'invalid'],
  ])('when the address is %s, then it is %s', (address, category) => {
    expect(classifyAddress(address)).toBe(category);
    expect(isDisallowedAddress(address)).toBe(true);
  });

  it.each(['8.8.8.8', '93.184.216.34', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '[2606:4700:4700::1111]'])(
    'when the address is public (%s), then it is allowed',
    (address) => {
      expect(addressProblem(address)).toBeNull();
    },
  );

  it('when local targets are allowed, then loopback, private, unique-local and CGNAT pass but metadata, link-local and unspecified do not', () => {
    for (const address of ['127.0.0.1', '::1', '10.0.0.1', '192.168.1.10', 'fd12:3456::1', '100.64.0.1']) {
      expect([address, addressProblem(address, true)]).toEqual([address, null]);
    }
    for (const address of ['169.254.169.254', 'fd00:ec2::254', '100.100.100.200', '169.254.1.1', '0.0.0.0', '::', '224.0.0.1']) {
      expect([address, isDisallowedAddress(address, true)]).toEqual([address, true]);
    }
  });
});

describe('url rule at creation and update', () => {
  it.each([
    ['https://127.0.0.1/h', 'points to a loopback address'],
    ['https://0x7f000001/h', 'points to a loopback address'],
    ['https://2130706433/h', 'points to a loopback address'],
    ['https://127.1/h', 'points to a loopback address'],
    ['https://[::1]/h', 'points to a loopback address'],
    ['https://[::7f00:1]/', 'points to an IPv4-compatible IPv6 address'],
    ['https://[::a9fe:a9fe]/', 'points to an IPv4-compatible IPv6 address'],
    ['https://[::ffff:127.0.0.1]/h', 'points to a loopback address'],
    ['https://[64:ff9b::7f00:1]/h', 'points to a NAT64 address'],
    ['https://[2002:7f00:1::]/h', 'points to a 6to4 address'],
    ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/h', 'points to a Teredo address'],
    ['https://169.254.169.254/latest/meta-data/', 'points to a cloud metadata address'],
    ['https://[fd00:ec2::254]/', 'points to a cloud metadata address'],
    ['https://10.0.0.1/h', 'points to a private address'],
    ['https://100.64.0.1/h', 'points to a carrier-grade NAT address'],
    ['https://0.0.0.0/h', 'points to the unspecified address'],
  ])('when local targets are not allowed and the url is %s, then it is refused: %s', (url, problem) => {
    expect(urlProblem(url, false)).toBe(problem);
  });

  it('when local targets are allowed, then loopback and private literals pass but metadata and embedded forms are refused', () => {
    expect(urlProblem('http://127.0.0.1:9/h', true)).toBeNull();
    expect(urlProblem('http://[::1]:9/h', true)).toBeNull();
    expect(urlProblem('http://192.168.0.10/h', true)).toBeNull();
    expect(urlProblem('http://169.254.169.254/', true)).toBe('points to a cloud metadata address');
    expect(urlProblem('http://[::7f00:1]/', true)).toBe('points to an IPv4-compatible IPv6 address');
    expect(urlProblem('http://[::ffff:a9fe:a9fe]/', true)).toBe('points to a cloud metadata address');
    expect(urlProblem('http://0.0.0.0:9/', true)).toBe('points to the unspecified address');
  });

  it('when the host is a name, then creation leaves it to the send-time check on the address dialled', () => {
    expect(urlProblem('https://localhost/h', false)).toBeNull();
    expect(urlProblem('https://127.0.0.1.nip.io/h', false)).toBeNull();
    expect(urlProblem('https://example.com/h', false)).toBeNull();
  });
});

describe('sender: refused literals are never dialled', () => {
  let server: net.Server;
  let port = 0;
  let connections = 0;

  beforeAll(async () => {
    server = net.createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it.each([
    [false, 'https://[::7f00:1]'],
    [false, 'https://[::ffff:7f00:1]'],
    [false, 'https://127.0.0.1'],
    [true, 'http://[::7f00:1]'],
    [true, 'http://[::a9fe:a9fe]'],
    [true, 'http://0.0.0.0'],
  ])(
    'when local targets allowed is %s and the url is %s, then the attempt fails with disallowed_address',
    async (allowLocal, base) => {
      const sender = new HttpSender({ allowLocalTargets: allowLocal, timeoutMs: 2000 });
      try {
        const before = connections;
        const result = attemptOutcome(await sender.send(`${base}:${port}/hook`, { 'content-type': 'application/json' }, '{}'));
        expect(result).toMatchObject({ succeeded: false, error: 'disallowed_address', httpStatus: null });
        expect(connections).toBe(before);
      } finally {
        await sender.close();
      }
    },
  );

  it('when local targets are allowed and the url is loopback, then it is dialled', async () => {
    const sender = new HttpSender({ allowLocalTargets: true, timeoutMs: 2000 });
    try {
      const before = connections;
      const result = attemptOutcome(
        await sender.send(`http://127.0.0.1:${port}/hook`, { 'content-type': 'application/json' }, '{}'),
      );
      // The listener hangs up at once: a reset, but the connection was made.
      expect(result.error).not.toBe('disallowed_address');
      expect(connections).toBe(before + 1);
    } finally {
      await sender.close();
    }
  });
});
