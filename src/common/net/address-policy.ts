import ipaddr from 'ipaddr.js';

/**
 * Which addresses http_fetch may connect to. Pure functions (no DNS, no sockets) so the rules can be
 * unit-tested on private and metadata addresses without ever reaching them.
 */

/** Cloud metadata services: refused even for hosts a workspace allows (no legitimate use from a tool). */
const METADATA_ADDRESSES = ['169.254.169.254', 'fd00:ec2::254', '100.100.100.200'].map((a) => ipaddr.parse(a).toNormalizedString());
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata']);

/** Words for the ranges ipaddr.js names, as the refusal states them. */
const RANGE_WORDS: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT (100.64/10) address',
  private: 'a private address',
  uniqueLocal: 'a private (unique local, fc00::/7) address',
  reserved: 'a reserved address',
};

/** Strips the brackets of an IPv6 URL host (`[::1]` → `::1`) and a zone id. */
export function bareAddress(host: string): string {
  const inner = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return inner.split('%')[0];
}

export function isMetadataName(hostname: string): boolean {
  return METADATA_NAMES.has(hostname.toLowerCase().replace(/\.$/, ''));
}

export function isMetadataAddress(address: string): boolean {
  if (!ipaddr.isValid(bareAddress(address))) return false;
  const parsed = unwrapMapped(ipaddr.parse(bareAddress(address)));
  return METADATA_ADDRESSES.includes(parsed.toNormalizedString());
}

/** A refused address: as shown (with the IPv4 address it embeds, if any) and what it is. */
export interface BlockedAddress {
  shown: string;
  /** e.g. "a loopback address" */
  what: string;
}

/**
 * What is wrong with connecting to `address`, or null when it is a public unicast address. Anything
 * ipaddr.js does not call `unicast` is refused: private, loopback, link-local, CGNAT, multicast,
 * broadcast, reserved, documentation, benchmarking, 6to4, Teredo…; IPv6 outside 2000::/3 too.
 * IPv6 forms embedding an IPv4 address (mapped, NAT64, SIIT) are judged by that IPv4 address.
 */
export function classifyAddress(address: string): BlockedAddress | null {
  const bare = bareAddress(address);
  if (!ipaddr.isValid(bare)) return { shown: address, what: 'not an IP address' };
  const parsed = ipaddr.parse(bare);
  const effective = unwrapMapped(parsed);
  const shown = effective === parsed ? bare : `${bare} (${effective.toString()})`;
  if (isMetadataAddress(bare)) return { shown, what: 'a cloud metadata address' };
  const range = effective.range();
  if (range === 'unicast') {
    // only 2000::/3 is global unicast; the rest (e.g. the deprecated IPv4-compatible ::a.b.c.d) is unassigned
    if (effective.kind() === 'ipv6' && !effective.match(GLOBAL_UNICAST_V6)) return { shown, what: 'not a global unicast address' };
    return null;
  }
  return { shown, what: RANGE_WORDS[range] ?? `a special-purpose (${range}) address` };
}

/** "127.0.0.1 is a loopback address", or null for an address http_fetch may reach. */
export function blockedAddressReason(address: string): string | null {
  const blocked = classifyAddress(address);
  return blocked && `${blocked.shown} is ${blocked.what}`;
}

/** The IPv4 address an IPv6 address stands for when it embeds one (::ffff:a.b.c.d, 64:ff9b::/96, ::ffff:0:a.b.c.d). */
function unwrapMapped(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  if (address.kind() !== 'ipv6') return address;
  const v6 = address as ipaddr.IPv6;
  const range = v6.range();
  if (range === 'ipv4Mapped') return v6.toIPv4Address();
  if (range === 'rfc6145' || (range === 'rfc6052' && v6.parts[2] === 0)) {
    const [hi, lo] = [v6.parts[6], v6.parts[7]];
    return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  }
  return address;
}
