/**
 * The address rules of http_fetch as pure functions: nothing here opens a socket or asks DNS
 * (names resolve through a stub), so private and metadata addresses are never contacted.
 */
import { blockedAddressReason } from './address-policy';
import { isHostAllowed } from './allowed-hosts';
import { resolveTarget, type Resolver } from './resolve-target';

describe('http_fetch address policy', () => {
  it.each([
    ['10.0.0.1', '10.0.0.1 is a private address'],
    ['172.16.5.4', '172.16.5.4 is a private address'],
    ['192.168.1.1', '192.168.1.1 is a private address'],
    ['169.254.169.254', '169.254.169.254 is a cloud metadata address'],
    ['169.254.1.1', '169.254.1.1 is a link-local address'],
    ['100.64.0.1', '100.64.0.1 is a carrier-grade NAT (100.64/10) address'],
    ['127.0.0.1', '127.0.0.1 is a loopback address'],
    ['127.8.9.10', '127.8.9.10 is a loopback address'],
    ['::1', '::1 is a loopback address'],
    ['[::1]', '::1 is a loopback address'],
    ['fe80::1', 'fe80::1 is a link-local address'],
    ['fc00::1', 'fc00::1 is a private (unique local, fc00::/7) address'],
    ['fd00:ec2::254', 'fd00:ec2::254 is a cloud metadata address'],
    ['::ffff:127.0.0.1', '::ffff:127.0.0.1 (127.0.0.1) is a loopback address'],
    ['::ffff:10.1.2.3', '::ffff:10.1.2.3 (10.1.2.3) is a private address'],
    ['::ffff:169.254.169.254', '::ffff:169.254.169.254 (169.254.169.254) is a cloud metadata address'],
    ['64:ff9b::a9fe:a9fe', '64:ff9b::a9fe:a9fe (169.254.169.254) is a cloud metadata address'],
    ['0.0.0.0', '0.0.0.0 is an unspecified address'],
    ['::', ':: is an unspecified address'],
    ['255.255.255.255', '255.255.255.255 is a broadcast address'],
    ['224.0.0.1', '224.0.0.1 is a multicast address'],
    ['ff02::1', 'ff02::1 is a multicast address'],
    ['240.0.0.1', '240.0.0.1 is a reserved address'],
    ['::7f00:1', '::7f00:1 is not a global unicast address'],
  ])('refuses %s', (address, reason) => {
    expect(blockedAddressReason(address)).toBe(reason);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.215.14', '2606:4700::1111', '2001:4860:4860::8888', '::ffff:8.8.8.8'])('allows the public address %s', (address) => {
    expect(blockedAddressReason(address)).toBeNull();
  });

  it('judges what WHATWG URL parsing makes of decimal, hex and short IPv4 forms', () => {
    for (const raw of ['http://2130706433/', 'http://0x7f000001/', 'http://0177.0.0.1/', 'http://127.1/']) {
      expect(blockedAddressReason(new URL(raw).hostname)).toBe('127.0.0.1 is a loopback address');
    }
    expect(blockedAddressReason(new URL('http://[0:0:0:0:0:ffff:7f00:1]/').hostname)).toBe('::ffff:7f00:1 (127.0.0.1) is a loopback address');
  });
});

describe('http_fetch target resolution (stub resolver)', () => {
  const dns: Record<string, string[]> = {
    'public.test': ['93.184.215.14'],
    'internal.test': ['10.0.0.7'],
    'mixed.test': ['93.184.215.14', '192.168.0.10'],
    'meta.test': ['169.254.169.254'],
  };
  const resolver: Resolver = async (name) => {
    const addresses = dns[name];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const resolve = (url: string, allowed?: string[]) => resolveTarget(new URL(url), allowed, resolver);

  it('connects to the checked address of a public name', async () => {
    expect(await resolve('https://public.test/page')).toEqual({ ok: true, address: '93.184.215.14', family: 4 });
  });

  it('refuses a name resolving to a private address, naming it', async () => {
    const result = await resolve('http://internal.test/');
    expect(result).toMatchObject({ ok: false, error: expect.stringContaining('internal.test resolves to 10.0.0.7, a private address') });
  });

  it('refuses a name with one public and one private address (either could be connected to)', async () => {
    expect(await resolve('http://mixed.test/')).toMatchObject({ ok: false, error: expect.stringContaining('192.168.0.10') });
  });

  it('refuses literal IP hosts without resolving them', async () => {
    expect(await resolve('http://[::1]:8080/')).toMatchObject({ ok: false, error: expect.stringContaining('::1 is a loopback address') });
    expect(await resolve('http://2130706433/')).toMatchObject({ ok: false, error: expect.stringContaining('127.0.0.1 is a loopback address') });
  });

  it('an allowed host skips the check; metadata stays refused even then', async () => {
    expect(await resolve('http://internal.test/', ['INTERNAL.test'])).toEqual({ ok: true, address: '10.0.0.7', family: 4 });
    expect(await resolve('http://meta.test/', ['meta.test'])).toMatchObject({ ok: false, error: expect.stringContaining('cloud metadata') });
    expect(await resolve('http://metadata.google.internal/', ['metadata.google.internal'])).toMatchObject({ ok: false, error: expect.stringContaining('cloud metadata') });
  });

  it('reports names that do not resolve', async () => {
    expect(await resolve('http://nowhere.test/')).toEqual({ ok: false, error: 'could not resolve nowhere.test (ENOTFOUND)' });
  });
});

describe('httpFetchAllowedHosts matching', () => {
  const allowed = (patterns: string[], url: string) => isHostAllowed(patterns, new URL(url));

  it('matches host names exactly and case-insensitively, with the port when the entry has one', () => {
    expect(allowed(['wiki.corp'], 'http://WIKI.corp:8080/x')).toBe(true);
    expect(allowed(['wiki.corp'], 'http://wiki.corp.evil.com/')).toBe(false);
    expect(allowed(['wiki.corp:8080'], 'http://wiki.corp:8080/')).toBe(true);
    expect(allowed(['wiki.corp:8080'], 'http://wiki.corp:8081/')).toBe(false);
    expect(allowed(['wiki.corp:443'], 'https://wiki.corp/')).toBe(true);
    expect(allowed([], 'http://wiki.corp/')).toBe(false);
  });

  it('`*.domain` covers subdomains only', () => {
    expect(allowed(['*.corp.example'], 'http://a.b.corp.example/')).toBe(true);
    expect(allowed(['*.corp.example'], 'http://corp.example/')).toBe(false);
    expect(allowed(['*.corp.example'], 'http://xcorp.example/')).toBe(false);
  });

  it('IP entries match the forms URLs normalize to', () => {
    expect(allowed(['127.0.0.1:9000'], 'http://2130706433:9000/')).toBe(true);
    expect(allowed(['[::1]:9000'], 'http://[0::1]:9000/')).toBe(true);
    expect(allowed(['127.0.0.1:9000'], 'http://127.0.0.1:9001/')).toBe(false);
  });
});
