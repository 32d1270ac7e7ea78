import ipaddr from 'ipaddr.js';

/**
 * Server-side request forgery guard for webhook URLs (docs/contract.md §9), pure but for the resolver
 * port. The WHATWG URL parser already canonicalises every IPv4 spelling (decimal `2130706433`,
 * octal `0177.0.0.1`, hex `0x7f.1`) to dotted decimal and brackets IPv6, so what reaches the
 * address check is a canonical literal or a name; a name is resolved and every address it has
 * is checked. Classification comes from ipaddr.js's range tables, not our own CIDR arithmetic,
 * with two additions: IPv4-mapped IPv6 (`::ffff:0:0/96`) is judged as the IPv4 address it
 * carries, and IPv4-compatible IPv6 (`::/96`, but `::` and `::1`) is refused whatever it carries
 * (contract §15). Resolution runs inside the attempt's 15 s deadline (`vetWebhookUrl`).
 */

export interface HostResolver {
  /**
   * Every address the name resolves to (IPv4 and IPv6). `signal` is the attempt's deadline: stop
   * waiting (reject) when it aborts. The guard stops waiting then too, whether or not it does.
   */
  resolve(hostname: string, options?: { signal?: AbortSignal }): Promise<string[]>;
}

/**
 * One delivery attempt, name resolution included, has this long (contract §9 and §15): the
 * deadline starts when the URL is checked and the sender's connection and answer share it.
 */
export const ATTEMPT_BUDGET_MS = 15_000;

/** The deadline of one attempt: aborts `budgetMs` after the check began. */
export interface AttemptDeadline {
  signal: AbortSignal;
  budgetMs: number;
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
  /** The attempt's deadline, already running during name resolution: the sender ends the attempt by it. */
  deadline?: AttemptDeadline;
}

export interface VetOptions {
  /** The attempt's deadline when the caller already runs one; else a new one of `budgetMs`. */
  deadline?: AttemptDeadline;
  /** Default ATTEMPT_BUDGET_MS. */
  budgetMs?: number;
}

export class UnsafeWebhookUrlError extends Error {
  override name = 'UnsafeWebhookUrlError';
}

/** The only range a webhook may reach in AWS; ipaddr.js names every other one (private, loopback, linkLocal, ...). */
const PUBLIC_RANGE = 'unicast';

/** `::/96`, IPv4-compatible IPv6 (RFC 4291 §2.5.5.1, deprecated): the last 32 bits are an IPv4 address. */
const IPV4_COMPATIBLE: [ipaddr.IPv6, number] = [new ipaddr.IPv6([0, 0, 0, 0, 0, 0, 0, 0]), 96];

/** Why the address may not be reached, or undefined when it may. */
export function addressRefusal(address: string, policy: UrlPolicy): string | undefined {
  const parsed = parseAddress(address);
  if (!parsed) return 'is not an IP address';
  let judged: ipaddr.IPv4 | ipaddr.IPv6 = parsed;
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    // `::ffff:127.0.0.1` is 127.0.0.1 to the socket: judge the IPv4 address it carries.
    if (v6.isIPv4MappedAddress()) judged = v6.toIPv4Address();
    // IPv4-compatible `::127.0.0.1` (`::7f00:1`) is unicast to ipaddr.js, but a host with automatic
    // tunnelling (Linux's sit0) sends it to the IPv4 address it carries. Refused in every mode,
    // whatever it carries: the refusal names the IPv4 address and its range (loopback, private,
    // linkLocal, ...), and one carrying a public address (`::8.8.8.8`) is refused too, since no
    // receiver needs this deprecated spelling (use the IPv4 address itself). `::` (unspecified)
    // and `::1` (loopback), also in `::/96`, keep their own ranges below.
    else if (v6.match(IPV4_COMPATIBLE) && !['unspecified', 'loopback'].includes(v6.range())) {
      const carried = ipaddr.fromByteArray(v6.toByteArray().slice(12)) as ipaddr.IPv4;
      const range = carried.range();
      const carrying = `is IPv4-compatible IPv6 (::/96, refused whatever it carries) carrying ${carried.toString()}`;
      return range === PUBLIC_RANGE ? `${carrying}: use the IPv4 address itself` : `${carrying}, in the ${range} range`;
    }
  }
  const range = judged.range();
  if (range === PUBLIC_RANGE) return undefined;
  if (policy.localMode && range === 'loopback') return undefined;
  return `is in the ${range} range`;
}

/**
 * ipaddr.js reads the IPv4-compatible spelling `::1.2.3.4` as the IPv4-mapped `::ffff:1.2.3.4`;
 * a socket connects to `::102:304`. Undo that: a result that is IPv4-mapped although the text
 * never says `ffff` was written IPv4-compatible.
 */
function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (!ipaddr.isValid(address)) return undefined;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() !== 'ipv6') return parsed;
  const v6 = parsed as ipaddr.IPv6;
  const text = address.split('%')[0] ?? address;
  if (v6.isIPv4MappedAddress() && !/ffff/i.test(text)) {
    return new ipaddr.IPv6([0, 0, 0, 0, 0, 0, v6.parts[6] ?? 0, v6.parts[7] ?? 0]);
  }
  return v6;
}

/**
 * Checks a webhook URL (before registration and before every attempt) and starts the attempt's
 * deadline: name resolution runs inside it (a resolver that never answers ends the check when the
 * deadline passes, as a refusal), and the returned target carries it on to the sender, so lookup,
 * connection and answer together take at most `budgetMs`.
 */
export async function vetWebhookUrl(
  raw: string,
  policy: UrlPolicy,
  resolver: HostResolver,
  options: VetOptions = {},
): Promise<VettedTarget> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeWebhookUrlError('url must be an absolute URL');
  }
  const allowedProtocols = policy.localMode ? ['https:', 'http:'] : ['https:'];
  if (!allowedProtocols.includes(url.protocol)) throw new UnsafeWebhookUrlError('url must use https');
  if (url.username !== '' || url.password !== '') throw new UnsafeWebhookUrlError('url must not carry credentials');

  const deadline = options.deadline ?? startDeadline(options.budgetMs ?? ATTEMPT_BUDGET_MS);
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const addresses = ipaddr.isValid(host) ? [host] : await resolveOrRefuse(resolver, host, deadline);
  if (addresses.length === 0) throw new UnsafeWebhookUrlError('url host does not resolve');
  for (const address of addresses) {
    const refusal = addressRefusal(address, policy);
    if (refusal) throw new UnsafeWebhookUrlError(`url host ${address} ${refusal}`);
  }
  const address = addresses[0] as string;
  return { url, address, family: ipaddr.parse(address).kind() === 'ipv6' ? 6 : 4, deadline };
}

/**
 * A deadline on the timer functions (so a fake clock can move it); the timer does not keep the
 * process alive, and it is not cleared: after the check it goes on as the sender's deadline.
 */
/** A deadline of `budgetMs` from now, for one attempt: name resolution, secret, connection and answer. */
export function startDeadline(budgetMs: number): AttemptDeadline {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException(`the attempt took more than ${budgetMs} ms`, 'TimeoutError')),
    budgetMs,
  );
  (timer as { unref?: () => void }).unref?.();
  return { signal: controller.signal, budgetMs };
}

async function resolveOrRefuse(resolver: HostResolver, host: string, deadline: AttemptDeadline): Promise<string[]> {
  const { signal } = deadline;
  const timedOut = () => new UnsafeWebhookUrlError(`url host did not resolve within ${deadline.budgetMs} ms`);
  if (signal.aborted) throw timedOut();
  let stopWaiting = (): void => undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    stopWaiting = () => reject(timedOut());
    signal.addEventListener('abort', stopWaiting, { once: true });
  });
  try {
    return await Promise.race([resolver.resolve(host, { signal }), aborted]);
  } catch (error) {
    if (error instanceof UnsafeWebhookUrlError || signal.aborted) throw timedOut();
    throw new UnsafeWebhookUrlError('url host does not resolve');
  } finally {
    signal.removeEventListener('abort', stopWaiting);
  }
}
