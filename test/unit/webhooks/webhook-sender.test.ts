import { setTimeout as sleep } from 'node:timers/promises';
import { FAST_LANE_ATTEMPT_MS } from '#shared/domain/webhooks/webhook-lanes.ts';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { dnsHostResolver } from '#shared/adapters/http/dns-host-resolver.ts';
import { createWebhookSender, DELIVERY_TIMEOUT_MS, MAX_RESPONSE_BYTES } from '#shared/adapters/http/webhook-sender.ts';
import { attemptWebhookDelivery, fanOutWebhookEvent } from '#shared/domain/webhooks/deliver-webhooks.ts';
import { AWS_RETRY_DELAYS_SECONDS } from '#shared/domain/webhooks/retry-schedule.ts';
import {
  ATTEMPT_BUDGET_MS,
  UnsafeWebhookUrlError,
  vetWebhookUrl,
  type HostResolver,
} from '#shared/domain/webhooks/ssrf-guard.ts';
import { webhookEndpoint, webhookEvent } from '#test/support/fixtures/webhooks.ts';
import { FakeClock } from '#test/unit/reports/fakes.ts';
import { fakeSealer, InMemoryDeliveryLog, InMemoryEndpoints, RecordingQueue } from './fakes.ts';

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
    expect(answer).toEqual({ timedOut: true, error: 'no answer within 200 ms' });
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

/** A resolver that never answers (a name server that swallows the query), noting the signal it was given. */
function hangingResolver(): HostResolver & { signals: Array<AbortSignal | undefined> } {
  const signals: Array<AbortSignal | undefined> = [];
  return {
    signals,
    resolve: (_hostname, options) => {
      signals.push(options?.signal);
      return new Promise<string[]>(() => undefined);
    },
  };
}

/** A resolver that answers after `ms` (real timers). */
const slowResolver = (ms: number, addresses: string[]): HostResolver => ({
  resolve: () => new Promise((resolve) => setTimeout(() => resolve(addresses), ms)),
});

const LOCAL = { localMode: true };

describe('name resolution inside the attempt’s 15 s (contract §15)', () => {
  it('has one 15 s budget for the attempt, and the sender’s own bound is the same', () => {
    expect(ATTEMPT_BUDGET_MS).toBe(15_000);
    expect(DELIVERY_TIMEOUT_MS).toBe(ATTEMPT_BUDGET_MS);
  });

  it('ends the attempt at the budget when the resolver never answers, and hands the resolver the deadline', async () => {
    const resolver = hangingResolver();
    const started = performance.now();
    const failure = await vetWebhookUrl('http://hangs.example:8080/hook', LOCAL, resolver, { budgetMs: 200 }).catch(
      (error: unknown) => error,
    );
    const elapsed = performance.now() - started;

    expect(failure).toBeInstanceOf(UnsafeWebhookUrlError);
    expect((failure as Error).message).toBe('url host did not resolve within 200 ms');
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(1_000);
    expect(resolver.signals).toHaveLength(1);
    expect(resolver.signals[0]?.aborted).toBe(true);
  });

  it('gives the receiver only what the lookup left: lookup, connection and answer share one deadline', async () => {
    let requests = 0;
    const port = await serve(() => {
      requests++; // and never answers
    });
    const started = performance.now();
    const target = await vetWebhookUrl(
      `http://receiver.invalid:${port}/hook`,
      LOCAL,
      slowResolver(300, ['127.0.0.1']),
      {
        budgetMs: 700,
      },
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);

    // The sender's own bound is the full 15 s: only the attempt's deadline can end this at 700 ms.
    const answer = await createWebhookSender().send(target, message);
    const elapsed = performance.now() - started;

    expect(answer).toEqual({ timedOut: true, error: 'no answer within 700 ms, name resolution included' });
    expect(elapsed).toBeGreaterThanOrEqual(690);
    expect(elapsed).toBeLessThan(700 + 250); // not 300 ms of lookup + another 700 ms (or 15 s) for the receiver
    expect(requests).toBe(1);
  });

  it('does not connect at all when the attempt’s time is already spent', async () => {
    let connections = 0;
    const port = await serve((_request, response) => response.writeHead(204).end());
    servers[0]!.on('connection', () => connections++);
    const target = await vetWebhookUrl(`http://127.0.0.1:${port}/hook`, LOCAL, hangingResolver(), { budgetMs: 100 });
    await sleep(150); // e.g. opening the secret took the rest

    expect(await createWebhookSender().send(target, message)).toEqual({
      timedOut: true,
      error: 'no answer within 100 ms, name resolution included',
    });
    expect(connections).toBe(0);
  });

  it('still answers within the budget when lookup and receiver are quick', async () => {
    const port = await serve((_request, response) => response.writeHead(204).end());
    const target = await vetWebhookUrl(`http://receiver.invalid:${port}/hook`, LOCAL, slowResolver(20, ['127.0.0.1']), {
      budgetMs: 2_000,
    });
    expect(await createWebhookSender().send(target, message)).toEqual({ status: 204 });
  });

  it('ends a slow-lane delivery attempt at 15 s when the endpoint’s name never resolves (fake clock), as a retried failure', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const deps = {
        endpoints: new InMemoryEndpoints(),
        deliveries: new InMemoryDeliveryLog(),
        queue: new RecordingQueue(),
        clock: new FakeClock(),
      };
      const resolver = hangingResolver();
      const attempt = attemptWebhookDelivery({
        ...deps,
        sealer: fakeSealer,
        resolver,
        sender: createWebhookSender(),
        policy: { localMode: false },
        schedule: AWS_RETRY_DELAYS_SECONDS,
      });
      const owner = { orgId: 'org-a', endpointId: 'ep-1' };
      await deps.endpoints.create(
        webhookEndpoint({
          ...owner,
          url: 'https://hangs.example.com/in',
          sealedSecret: await fakeSealer.seal(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, owner),
        }),
        10,
      );
      await fanOutWebhookEvent(deps)(webhookEvent({ orgId: 'org-a' }));
      const fast = deps.queue.deliveries.shift()!.message;

      // The fast lane gives up after its 2 s: the message moves to the slow lane, uncounted.
      let moved: unknown;
      void attempt(fast).then((result) => (moved = result));
      await vi.advanceTimersByTimeAsync(FAST_LANE_ATTEMPT_MS);
      expect(moved).toEqual({ outcome: 'moved', lane: 'slow', reason: 'no-answer-in-time' });
      const delivery = deps.queue.deliveries.shift()!.message;
      expect(delivery).toMatchObject({ lane: 'slow', attempt: 1 });

      let outcome: unknown;
      void attempt(delivery).then((result) => (outcome = result));
      await vi.advanceTimersByTimeAsync(ATTEMPT_BUDGET_MS - 1);
      expect(outcome).toBeUndefined();
      expect(resolver.signals[1]?.aborted).toBe(false);

      await vi.advanceTimersByTimeAsync(1);
      expect(outcome).toMatchObject({ outcome: 'retrying', error: 'url host did not resolve within 15000 ms' });
      expect(resolver.signals[1]?.aborted).toBe(true);
      expect(await deps.deliveries.get(delivery)).toMatchObject({ status: 'pending', attempts: 1 });
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the DNS resolver', () => {
  it('does not look up a name once the attempt’s deadline has passed', async () => {
    const failure = await dnsHostResolver
      .resolve('localhost', { signal: AbortSignal.abort(new Error('deadline passed')) })
      .catch((error: unknown) => error);
    expect((failure as Error).message).toBe('deadline passed');
  });

  it('stops waiting for the answer when the deadline passes during the lookup', async () => {
    const controller = new AbortController();
    const resolving = dnsHostResolver.resolve('localhost', { signal: controller.signal });
    controller.abort(new Error('deadline passed'));
    await expect(resolving).rejects.toThrow('deadline passed');
  });

  it('resolves a name within a deadline that does not pass', async () => {
    const addresses = await dnsHostResolver.resolve('localhost', { signal: AbortSignal.timeout(5_000) });
    expect(addresses.some((address) => address === '127.0.0.1' || address === '::1')).toBe(true);
  });
});
