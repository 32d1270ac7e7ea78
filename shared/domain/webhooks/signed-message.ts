import { Webhook } from 'standardwebhooks';

/**
 * The headers a message is POSTed with (Standard Webhooks): `webhook-id`, `webhook-timestamp` and
 * `webhook-signature`, signed at `sentAt` with the endpoint's secret. A delivery attempt and the
 * sandbox listener's feed both sign through here, so a forwarded message is signed as a delivered one.
 */
export function signedMessageHeaders(
  secret: string,
  message: { messageId: string; body: string },
  sentAt: Date,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': message.messageId,
    'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(message.messageId, sentAt, message.body),
  };
}
