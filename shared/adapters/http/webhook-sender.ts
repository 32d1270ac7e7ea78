import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { WebhookResponse, WebhookSender } from '#shared/domain/webhooks/ports.ts';
import { ATTEMPT_BUDGET_MS, type VettedTarget } from '#shared/domain/webhooks/ssrf-guard.ts';

/**
 * A receiver has this long, connection included, to answer (docs/contract.md §9): the sender's own
 * bound. A target checked by `vetWebhookUrl` also carries the attempt's deadline, which started
 * before name resolution; the attempt ends at whichever comes first, so lookup, connection and
 * answer share the 15 s (contract §15).
 */
export const DELIVERY_TIMEOUT_MS = ATTEMPT_BUDGET_MS;
/** At most this much of a receiver's answer is read; the rest is discarded with the connection. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * POSTs with Node's own client, which never follows redirects (a 3XX is just a status, so a
 * failure). The connection goes to the address the SSRF guard checked: the `lookup` option hands
 * the socket that address instead of resolving the name again, so a DNS answer that changes
 * between the check and the connection (DNS rebinding) cannot redirect it. TLS still verifies the
 * certificate against the URL's host name.
 */
export function createWebhookSender(options: { timeoutMs?: number } = {}): WebhookSender {
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  return {
    send(target: VettedTarget, message: { headers: Record<string, string>; body: string }): Promise<WebhookResponse> {
      const vettedLookup: LookupFunction = (_hostname, lookupOptions, callback) => {
        if ((lookupOptions as { all?: boolean }).all) {
          (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
            { address: target.address, family: target.family },
          ]);
        } else callback(null, target.address, target.family);
      };
      const request = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
      const attempt = target.deadline;
      const ownTimeout = AbortSignal.timeout(timeoutMs);
      const signal = attempt ? AbortSignal.any([attempt.signal, ownTimeout]) : ownTimeout;
      const timedOut = (): WebhookResponse => ({
        timedOut: true,
        error:
          attempt?.signal.aborted && !ownTimeout.aborted
            ? `no answer within ${attempt.budgetMs} ms, name resolution included`
            : `no answer within ${timeoutMs} ms`,
      });
      // The attempt's time went in resolving the name (or opening the secret): do not connect at all.
      if (signal.aborted) return Promise.resolve(timedOut());
      return new Promise<WebhookResponse>((resolve) => {
        let settled = false;
        const finish = (response: WebhookResponse) => {
          if (settled) return;
          settled = true;
          signal.removeEventListener('abort', onTimeout);
          resolve(response);
        };
        const onTimeout = () => {
          outgoing.destroy(new Error('timed out'));
          finish(timedOut());
        };
        const outgoing = request(
          target.url,
          {
            method: 'POST',
            lookup: vettedLookup,
            headers: {
              ...message.headers,
              'content-length': String(Buffer.byteLength(message.body)),
              'user-agent': 'onboarding-webhooks/1',
            },
          },
          (incoming: IncomingMessage) => {
            const status = incoming.statusCode ?? 0;
            let read = 0;
            incoming.on('data', (chunk: Buffer) => {
              read += chunk.length;
              if (read >= MAX_RESPONSE_BYTES) {
                incoming.destroy();
                finish({ status });
              }
            });
            incoming.on('end', () => finish({ status }));
            incoming.on('error', () => finish({ status }));
            incoming.on('close', () => finish({ status }));
          },
        );
        signal.addEventListener('abort', onTimeout, { once: true });
        outgoing.on('error', (error) => finish({ error: error.message }));
        outgoing.end(message.body);
      });
    },
  };
}
