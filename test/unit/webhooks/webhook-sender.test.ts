import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createWebhookSender, MAX_RESPONSE_BYTES } from '../../../shared/adapters/http/webhook-sender.ts';

const servers: Array<ReturnType<typeof createServer>> = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

async function serve(listener: RequestListener): Promise<number> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A URL whose name would not resolve: only the vetted address can make the connection work. */
const target = (port: number) => ({
  url: new URL(`http://receiver.invalid:${port}/hook`),
  address: '127.0.0.1',
  family: 4 as const,
});
const message = { headers: { 'webhook-id': 'msg_1', 'content-type': 'application/json' }, body: '{"a":1}' };

describe('the webhook sender', () => {
  it('connects to the vetted address (never resolving the name again) and posts the body and headers', async () => {
    let seen: { headers: Record<string, unknown>; body: string } | undefined;
    const port = await serve((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        seen = { headers: request.headers, body };
        response.writeHead(204).end();
      });
    });
    expect(await createWebhookSender().send(target(port), message)).toEqual({ status: 204 });
    expect(seen).toMatchObject({
      body: '{"a":1}',
      headers: { 'webhook-id': 'msg_1', host: `receiver.invalid:${port}` },
    });
  });

  it('does not follow a redirect: the 3XX is the answer', async () => {
    const port = await serve((_request, response) =>
      response.writeHead(307, { location: 'http://127.0.0.1:1/' }).end(),
    );
    expect(await createWebhookSender().send(target(port), message)).toEqual({ status: 307 });
  });

  it('reads at most 64 KB of an answer', async () => {
    let written = 0;
    const port = await serve((_request, response) => {
      response.writeHead(200);
      const chunk = Buffer.alloc(16 * 1024, 97);
      const pump = () => {
        while (written < 10 * MAX_RESPONSE_BYTES) {
          written += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        response.end();
      };
      pump();
    });
    expect(await createWebhookSender().send(target(port), message)).toEqual({ status: 200 });
  });

  it('gives up after its timeout', async () => {
    const port = await serve(() => {
      // never answers
    });
    const answer = await createWebhookSender({ timeoutMs: 200 }).send(target(port), message);
    expect(answer).toEqual({ error: 'no answer within 200 ms' });
  });

  it('reports a refused connection as an error without a status', async () => {
    const port = await serve(() => undefined);
    servers[0]!.close();
    servers[0]!.closeAllConnections();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const answer = await createWebhookSender().send(target(port), message);
    expect(answer.status).toBeUndefined();
    expect(answer.error).toMatch(/ECONNREFUSED/);
  });
});
