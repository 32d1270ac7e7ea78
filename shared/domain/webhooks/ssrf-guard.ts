import ipaddr from 'ipaddr.js';

/**
 * Server-side request forgery guard for webhook URLs (CONTRACT.md §9), pure but for the resolver
 * port. The WHATWG URL parser already canonicalises every IPv4 spelling (decimal `2130706433`,
 * octal `0177.0.0.1`, hex `0x7f.1`) to dotted decimal and brackets IPv6, so what reaches the
 * address check is a canonical literal or a name; a name is resolved and every address it has
 * is checked. Classification comes from ipaddr.js's range tables, not our own CIDR arithmetic.
 */

export interface HostResolver {
  /** Every address the name resolves to (IPv4 and IPv6). */
  resolve(hostname: string): Promise<string[]>;
}

export interface UrlPolicy {
  /** Local mode: `http` allowed and loopback addresses allowed (a receiver on this machine). */
  localMode: boolean;
}

/** A URL that passed the guard and the address it was checked at: the connection goes there. */
export interface VettedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

export class UnsafeWebhookUrlError extends Error {
  override name = 'UnsafeWebhookUrlError';
}

/** The only range a webhook may reach in AWS; ipaddr.js names every other one (private, loopback, linkLocal, ...). */
const PUBLIC_RANGE = 'unicast';

/** Why the address may not be reached, or undefined when it may. */
export function addressRefusal(address: string, policy: UrlPolicy): string | undefined {
  if (!ipaddr.isValid(address)) return 'is not an IP address';
  let parsed = ipaddr.parse(address);
  // `::ffff:127.0.0.1` is 127.0.0.1 to the socket: judge the IPv4 address it carries.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const range = parsed.range();
  if (range === PUBLIC_RANGE) return undefined;
  if (policy.localMode && range === 'loopback') return undefined;
  return `is in the ${range} range`;
}

export async function vetWebhookUrl(raw: string, policy: UrlPolicy, resolver: HostResolver): Promise<VettedTarget> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeWebhookUrlError('url must be an absolute URL');
  }
  const allowedProtocols = policy.localMode ? ['https:', 'http:'] : ['https:'];
  if (!allowedProtocols.includes(url.protocol)) throw new UnsafeWebhookUrlError('url must use https');
  if (url.username !== '' || url.password !== '') throw new UnsafeWebhookUrlError('url must not carry credentials');

  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const addresses = ipaddr.isValid(host) ? [host] : await resolveOrRefuse(resolver, host);
  if (addresses.length === 0) throw new UnsafeWebhookUrlError('url host does not resolve');
  for (const address of addresses) {
    const refusal = addressRefusal(address, policy);
    if (refusal) throw new UnsafeWebhookUrlError(`url host ${address} ${refusal}`);
  }
  const address = addresses[0] as string;
  return { url, address, family: ipaddr.parse(address).kind() === 'ipv6' ? 6 : 4 };
}

async function resolveOrRefuse(resolver: HostResolver, host: string): Promise<string[]> {
  try {
    return await resolver.resolve(host);
  } catch {
    throw new UnsafeWebhookUrlError('url host does not resolve');
  }
}
