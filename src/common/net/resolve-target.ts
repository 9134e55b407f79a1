import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { bareAddress, classifyAddress, isMetadataAddress, isMetadataName } from './address-policy';
import { isHostAllowed } from './allowed-hosts';

/** The address a request will connect to: checked once, then used as is (no second DNS lookup). */
export interface Target {
  address: string;
  family: 4 | 6;
}

export type TargetResult = ({ ok: true } & Target) | { ok: false; error: string };

/** Every address of a name (DNS or /etc/hosts), as the system resolver gives them. */
export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** What to do about a refusal, for the one refused (http_fetch's words by default). */
export const HTTP_FETCH_ADVICE = 'http_fetch reaches public addresses only; a workspace admin can allow a host with the setting httpFetchAllowedHosts.';

/**
 * The SSRF guard of every outgoing call a workspace can aim (http_fetch, MCP servers over HTTP).
 * Resolves `url`'s host and checks the addresses: every one must be public (a name answering with
 * one public and one private address is refused: the connection might land on either), unless the
 * workspace allows the host. Cloud metadata names and addresses are refused even then.
 */
export async function resolveTarget(
  url: URL,
  allowedHosts: readonly string[] | undefined,
  resolve: Resolver = systemResolver,
  advice = HTTP_FETCH_ADVICE,
): Promise<TargetResult> {
  const host = bareAddress(url.hostname);
  if (isMetadataName(host)) return { ok: false, error: `${host} is a cloud metadata service. ${advice}` };
  const literal = isIP(host) !== 0;
  let addresses: Array<{ address: string; family: number }>;
  if (literal) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      return { ok: false, error: `could not resolve ${host} (${code})` };
    }
  }
  if (!addresses.length) return { ok: false, error: `could not resolve ${host} (no address)` };

  const allowed = isHostAllowed(allowedHosts, url);
  for (const { address } of addresses) {
    const blocked = classifyAddress(address);
    if (!blocked || (allowed && !isMetadataAddress(address))) continue;
    const what = literal ? `${blocked.shown} is ${blocked.what}` : `${host} resolves to ${blocked.shown}, ${blocked.what}`;
    return { ok: false, error: `${what}. ${advice}` };
  }
  const [first] = addresses;
  return { ok: true, address: first.address, family: first.family === 6 ? 6 : 4 };
}
