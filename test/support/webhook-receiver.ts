import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

/**
 * A webhook receiver on 127.0.0.1, port 0: records every request and answers with `respond`
 * (given the request's 1-based number), 204 by default.
 */
export async function startWebhookReceiver(
  respond: (requestNumber: number, response: ServerResponse) => void = (_n, response) => {
    response.statusCode = 204;
    response.end();
  },
) {
  const received: ReceivedWebhook[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() });
      respond(received.length, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    /** Resolves once `count` requests arrived (rejects after `timeoutMs`). */
    async waitFor(count: number, timeoutMs = 30_000): Promise<ReceivedWebhook[]> {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`received ${received.length} of ${count} webhooks`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
