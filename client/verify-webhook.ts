import { Webhook } from 'standardwebhooks';
import type { WebhookMessage } from './types.ts';

/** The three Standard Webhooks headers, as a Node or fetch request carries them. */
export type WebhookHeaders =
  Headers | Record<string, string | string[] | undefined> | { get(name: string): string | null };

/**
 * Checks a received webhook with the `standardwebhooks` library: the `webhook-signature` (HMAC
 * SHA-256 keyed with the endpoint's `whsec_` secret over `{id}.{timestamp}.{body}`) and a
 * `webhook-timestamp` within 5 minutes. Returns the parsed message; throws
 * `WebhookVerificationError` otherwise. Pass the body exactly as received (a string or Buffer),
 * never re-serialized JSON. Deduplicate on `webhook-id`: delivery is at least once.
 */
export function verifyWebhook<TData = Record<string, unknown>>(
  secret: string,
  body: string | Buffer,
  headers: WebhookHeaders,
): WebhookMessage<TData> {
  const header = (name: string): string => {
    const value =
      typeof (headers as { get?: unknown }).get === 'function'
        ? (headers as { get(name: string): string | null }).get(name)
        : (headers as Record<string, string | string[] | undefined>)[name];
    return (Array.isArray(value) ? value[0] : value) ?? '';
  };
  return new Webhook(secret).verify(body, {
    'webhook-id': header('webhook-id'),
    'webhook-timestamp': header('webhook-timestamp'),
    'webhook-signature': header('webhook-signature'),
  }) as WebhookMessage<TData>;
}

export { WebhookVerificationError } from 'standardwebhooks';
