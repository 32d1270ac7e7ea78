import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy between the functions and one dependency, whose fault can be switched while
 * traffic flows:
 *
 * - `pass`: bytes go through both ways.
 * - `stall`: a black hole. Connections are accepted, but nothing is forwarded either way, on new
 *   connections or open ones; a request sent during the stall never reaches the dependency. When
 *   the stall ends, the connections that lost bytes to it are closed (their callers gave up).
 * - `refuse`: the port stops listening (new connections: ECONNREFUSED) and open connections are
 *   reset, as when the dependency's host is down.
 * - `http-503`: every HTTP request is answered `503 Service Unavailable` by the proxy itself, with
 *   the error body AWS sends (JSON for JSON protocols, XML for S3), and nothing reaches the
 *   dependency. Open connections are closed when the mode starts.
 * - `hang-next-request`: a gray failure. The next HTTP request (on any connection) is swallowed and
 *   its connection answers nothing more, while every other request passes; then the mode is `pass`
 *   again by itself. The hung connection stays open until its client gives up on it.
 * - `hang-every-10th-request`: the same for one request in ten, counted across connections.
 * - `hang-then-land-next-request`: the next HTTP request reaches the dependency, which applies it,
 *   but its answer is swallowed and its connection answers nothing more; then the mode is `pass`
 *   again. The client's retry of that attempt meets the write its hung attempt made.
 *
 * A hang mode may be narrowed to the requests whose head contains a text (`matching`: an
 * operation's `x-amz-target`, a path), so a test hangs the call it means and not a poller's;
 * `hang-then-land-next-request` looks for it in every chunk of the request, body included (a table
 * name, an expression), since the request goes through either way.
 *
 * Counts the connections it accepted and the HTTP requests it answered with 503, for tests that
 * want to see the fault was hit.
 */

export const FAULT_MODES = [
  'pass',
  'stall',
  'refuse',
  'http-503',
  'hang-next-request',
  'hang-every-10th-request',
  'hang-then-land-next-request',
] as const;
export type FaultMode = (typeof FAULT_MODES)[number];

export interface FaultProxyStats {
  mode: FaultMode;
  connections: number;
  refusedWith503: number;
  /** Connections that lost bytes to a stall. */
  stalledConnections: number;
  /** Requests swallowed by a hang mode. */
  hungRequests: number;
}

interface Link {
  client: Socket;
  upstream?: Socket;
  /** True once a byte was dropped by a stall: the stream is broken, close it when the stall ends. */
  lostBytes: boolean;
  /** A request was sent and its answer has not begun: the client's next bytes continue that request. */
  awaitingAnswer: boolean;
  /** Swallowed by a hang mode: nothing more is forwarded either way (`request`), or only back (`answer`). */
  hung: 'request' | 'answer' | undefined;
}

/** Modes in which requests reach the dependency (all of them, or all but the ones hung). */
const FORWARDING_MODES: ReadonlySet<FaultMode> = new Set([
  'pass',
  'hang-next-request',
  'hang-every-10th-request',
  'hang-then-land-next-request',
]);

export class FaultProxy {
  private mode: FaultMode = 'pass';
  /** In a hang mode, only requests whose first bytes contain this are hung (and counted). */
  private matching: string | undefined;
  private readonly links = new Set<Link>();
  /** Connections answered by the proxy itself (http-503), closed when that mode ends. */
  private readonly answered = new Set<Socket>();
  private server: Server | undefined;
  private readonly stats = { connections: 0, refusedWith503: 0, stalledConnections: 0, hungRequests: 0 };
  /** Requests begun in `hang-every-10th-request` mode. */
  private requestsCounted = 0;

  private constructor(
    readonly name: string,
    private readonly target: { host: string; port: number },
    private port: number,
  ) {}

  /** Listens on 127.0.0.1 (a free port unless given) and forwards to `target`. */
  static async start(name: string, target: { host: string; port: number }, port = 0): Promise<FaultProxy> {
    const proxy = new FaultProxy(name, target, port);
    await proxy.listen();
    return proxy;
  }

  /** `http://127.0.0.1:{port}`: the endpoint the functions get instead of the dependency's. */
  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get listeningPort(): number {
    return this.port;
  }

  currentStats(): FaultProxyStats {
    return { mode: this.mode, ...this.stats };
  }

  async setMode(mode: FaultMode, options: { matching?: string } = {}): Promise<void> {
    const previous = this.mode;
    this.matching = options.matching;
    this.requestsCounted = 0;
    if (mode === previous) return;
    this.mode = mode;
    if (previous === 'refuse') await this.listen();
    if (previous === 'http-503') for (const client of this.answered) client.destroy();
    if (mode === 'refuse') {
      for (const link of this.links) destroyLink(link, true);
      await this.closeListener();
    } else if (mode === 'http-503') {
      for (const link of this.links) destroyLink(link, false);
    } else if (mode === 'pass') {
      for (const link of this.links) if (link.lostBytes || !link.upstream) destroyLink(link, false);
    }
  }

  async stop(): Promise<void> {
    for (const link of this.links) destroyLink(link, false);
    for (const client of this.answered) client.destroy();
    await this.closeListener();
  }

  private listen(): Promise<void> {
    const server = createServer((client) => this.accept(client));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        server.off('error', reject);
        this.port = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  private closeListener(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return Promise.resolve();
    return new Promise((resolve) => server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    this.stats.connections++;
    client.on('error', () => undefined);
    if (this.mode === 'http-503') {
      this.answerWith503(client);
      return;
    }
    const link: Link = { client, lostBytes: false, awaitingAnswer: false, hung: undefined };
    this.links.add(link);
    client.on('close', () => {
      this.links.delete(link);
      link.upstream?.destroy();
    });
    if (this.mode === 'stall') {
      client.on('data', () => this.lose(link));
      return;
    }
    this.connectUpstream(link);
  }

  private connectUpstream(link: Link): void {
    const upstream = connect(this.target.port, this.target.host);
    link.upstream = upstream;
    // A clean close is passed on as one (after the last bytes, e.g. PostgreSQL's FATAL), a reset as a reset.
    // A hung connection stays silent even when the dependency closes its side (an idle keep-alive timeout).
    upstream.on('error', () => link.hung || link.client.destroy());
    upstream.on('close', (hadError) => link.hung || (hadError ? link.client.destroy() : link.client.end()));
    link.client.on('data', (chunk: Buffer) => {
      if (!FORWARDING_MODES.has(this.mode)) {
        this.lose(link);
        return;
      }
      // SDK clients do not pipeline: bytes sent while no answer is awaited begin a new request.
      const hung = link.hung ? undefined : this.hangs(chunk, !link.awaitingAnswer);
      if (hung) {
        link.hung = hung;
        this.stats.hungRequests++;
      }
      link.awaitingAnswer = true;
      if (link.hung !== 'request') upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      link.awaitingAnswer = false;
      if (link.hung) return;
      if (FORWARDING_MODES.has(this.mode)) link.client.write(chunk);
      else this.lose(link);
    });
    link.client.on('end', () => upstream.end());
    upstream.on('end', () => link.hung || link.client.end());
  }

  /**
   * Whether the request `chunk` is part of is to be hung, and how: a request is hung on its first
   * bytes, or, for `hang-then-land-next-request`, on any chunk before its answer.
   */
  private hangs(chunk: Buffer, beginsRequest: boolean): Link['hung'] {
    if (this.mode === 'pass' || (!beginsRequest && this.mode !== 'hang-then-land-next-request')) return undefined;
    if (this.matching !== undefined && !chunk.toString('latin1').includes(this.matching)) return undefined;
    if (this.mode === 'hang-next-request' || this.mode === 'hang-then-land-next-request') {
      const hung = this.mode === 'hang-next-request' ? 'request' : 'answer';
      this.mode = 'pass';
      return hung;
    }
    return this.mode === 'hang-every-10th-request' && ++this.requestsCounted % 10 === 0 ? 'request' : undefined;
  }

  private lose(link: Link): void {
    if (!link.lostBytes) this.stats.stalledConnections++;
    link.lostBytes = true;
  }

  /** Reads each HTTP request on the connection to its end and answers it with AWS's 503. */
  private answerWith503(client: Socket): void {
    this.answered.add(client);
    client.on('close', () => this.answered.delete(client));
    let buffered = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const request = completeRequest(buffered);
        if (!request) return;
        buffered = buffered.subarray(request.length);
        this.stats.refusedWith503++;
        client.write(serviceUnavailableResponse(request.head));
      }
    });
  }
}

function destroyLink(link: Link, reset: boolean): void {
  if (reset) link.client.resetAndDestroy();
  else link.client.destroy();
  link.upstream?.destroy();
}

/** The length and head of the first complete HTTP/1.1 request in `bytes`, if there is one. */
function completeRequest(bytes: Buffer): { length: number; head: string } | undefined {
  const headEnd = bytes.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const head = bytes.subarray(0, headEnd).toString('latin1');
  const bodyStart = headEnd + 4;
  if (/^transfer-encoding:\s*chunked/im.test(head)) {
    const end = bytes.indexOf('\r\n0\r\n\r\n', bodyStart - 2);
    return end < 0 ? undefined : { length: end + 7, head };
  }
  const contentLength = Number(/^content-length:\s*(\d+)/im.exec(head)?.[1] ?? 0);
  return bytes.length >= bodyStart + contentLength ? { length: bodyStart + contentLength, head } : undefined;
}

/** AWS's answer when a service is unavailable: JSON for JSON protocols (SQS, SES v2, KMS), XML for S3. */
function serviceUnavailableResponse(requestHead: string): string {
  const json = /^(x-amz-target|content-type:.*json)/im.test(requestHead);
  const body = json
    ? JSON.stringify({ __type: 'ServiceUnavailableException', message: 'Service Unavailable (fault proxy)' })
    : '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>ServiceUnavailable</Code>' +
      '<Message>Service Unavailable (fault proxy)</Message><RequestId>fault-proxy</RequestId></Error>';
  return [
    'HTTP/1.1 503 Service Unavailable',
    `content-type: ${json ? 'application/x-amz-json-1.0' : 'application/xml'}`,
    ...(json ? ['x-amzn-errortype: ServiceUnavailableException'] : []),
    'x-amzn-requestid: fault-proxy',
    `content-length: ${Buffer.byteLength(body)}`,
    '',
    body,
  ].join('\r\n');
}

/**
 * An HTTP control port for proxies that live in another process (the tier's global setup):
 * `PUT /proxies/{name}` with a mode as body switches it, `GET /proxies/{name}` gives its stats.
 */
export async function startFaultProxyControl(
  proxies: ReadonlyMap<string, FaultProxy>,
): Promise<{ url: string; stop(): Promise<void> }> {
  const server: HttpServer = createHttpServer((request, response) => {
    const name = /^\/proxies\/([\w-]+)$/.exec(request.url ?? '')?.[1];
    const proxy = name === undefined ? undefined : proxies.get(name);
    if (!proxy) {
      response.writeHead(404).end();
      return;
    }
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      void (async () => {
        if (request.method === 'PUT') {
          // A mode, or `{"mode": ..., "matching": ...}`.
          const { mode, matching } = body.trimStart().startsWith('{')
            ? (JSON.parse(body) as { mode: FaultMode; matching?: string })
            : { mode: body.trim() as FaultMode, matching: undefined };
          if (!FAULT_MODES.includes(mode)) {
            response.writeHead(400).end(`mode must be one of ${FAULT_MODES.join(', ')}`);
            return;
          }
          await proxy.setMode(mode, matching === undefined ? {} : { matching });
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(proxy.currentStats()));
      })().catch((error: unknown) => response.writeHead(500).end(String(error)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Switches a proxy of the tier's global setup from a test: `setFault(controlUrl, 's3', 'stall')`;
 * a hang mode may be narrowed: `setFault(url, 'sqs', 'hang-next-request', 'AmazonSQS.SendMessage')`.
 */
export async function setFault(
  controlUrl: string,
  name: string,
  mode: FaultMode,
  matching?: string,
): Promise<FaultProxyStats> {
  const body = matching === undefined ? mode : JSON.stringify({ mode, matching });
  const response = await fetch(`${controlUrl}/proxies/${name}`, { method: 'PUT', body });
  if (!response.ok) throw new Error(`fault proxy ${name}: ${response.status} ${await response.text()}`);
  return (await response.json()) as FaultProxyStats;
}

export async function faultStats(controlUrl: string, name: string): Promise<FaultProxyStats> {
  const response = await fetch(`${controlUrl}/proxies/${name}`);
  if (!response.ok) throw new Error(`fault proxy ${name}: ${response.status}`);
  return (await response.json()) as FaultProxyStats;
}
