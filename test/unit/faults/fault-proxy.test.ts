import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultProxy } from '#test/support/fault-proxy.ts';

/** The fault tier's proxy against a small HTTP server: each mode does what the tier relies on. */
describe('FaultProxy', () => {
  let upstream: Server;
  let proxy: FaultProxy;
  let upstreamRequests = 0;
  /** The bodies of the requests the upstream read to their end: what it applied. */
  const applied: string[] = [];

  beforeAll(async () => {
    upstream = createServer((request, response) => {
      upstreamRequests++;
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        applied.push(body);
        response.end('from upstream');
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    proxy = await FaultProxy.start('test', { host: '127.0.0.1', port: (upstream.address() as AddressInfo).port });
  });

  afterAll(async () => {
    await proxy.stop();
    upstream.closeAllConnections();
    await new Promise((resolve) => upstream.close(resolve));
  });

  const get = (body?: string) =>
    fetch(proxy.endpoint, {
      method: body === undefined ? 'GET' : 'POST',
      ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
      signal: AbortSignal.timeout(1_000),
    });

  it('passes requests through', async () => {
    const response = await get();
    expect(await response.text()).toBe('from upstream');
  });

  it('stalls: nothing comes back and nothing reaches the dependency, until it passes again', async () => {
    await proxy.setMode('stall');
    const before = upstreamRequests;
    await expect(get()).rejects.toThrow();
    expect(upstreamRequests).toBe(before);
    expect(proxy.currentStats().stalledConnections).toBeGreaterThan(0);
    await proxy.setMode('pass');
    expect(await (await get()).text()).toBe('from upstream');
  });

  it('refuses connections, and listens on the same port again afterwards', async () => {
    const port = proxy.listeningPort;
    await proxy.setMode('refuse');
    const refused = await new Promise<string | undefined>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve(undefined));
      socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code));
    });
    expect(refused).toBe('ECONNREFUSED');
    await proxy.setMode('pass');
    expect(proxy.listeningPort).toBe(port);
    expect(await (await get()).text()).toBe('from upstream');
  });

  it('answers 503 itself, with AWS’s JSON error for a JSON request and its XML error otherwise', async () => {
    await proxy.setMode('http-503');
    const before = upstreamRequests;
    const json = await get('{}');
    expect(json.status).toBe(503);
    expect(json.headers.get('x-amzn-errortype')).toBe('ServiceUnavailableException');
    expect(await json.json()).toMatchObject({ __type: 'ServiceUnavailableException' });
    const xml = await get();
    expect(xml.status).toBe(503);
    expect(await xml.text()).toContain('<Code>ServiceUnavailable</Code>');
    expect(upstreamRequests).toBe(before);
    await proxy.setMode('pass');
    expect(await (await get()).text()).toBe('from upstream');
  });

  it('hangs then lands: the request the body names reaches the dependency, its answer never comes back', async () => {
    await proxy.setMode('hang-then-land-next-request', { matching: '"write":"w-1"' });
    expect(await (await get('{"write":"w-0"}')).text(), 'another request passes').toBe('from upstream');

    await expect(get('{"write":"w-1"}')).rejects.toThrow();
    expect(applied.at(-1), 'applied by the dependency').toBe('{"write":"w-1"}');
    expect(proxy.currentStats()).toMatchObject({ mode: 'pass', hungRequests: 1 });
    expect(await (await get('{"write":"w-1"}')).text(), 'its retry is answered').toBe('from upstream');
  });
});
