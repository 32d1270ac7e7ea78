/**
 * Stands in for client/verify-webhook.ts in the browser bundle (vite.config.ts): verifying a
 * webhook is a receiver's job, never the dashboard's, and the `standardwebhooks` library it wraps
 * is CommonJS, which the bundler cannot tree-shake out of the client's index.
 */
export function verifyWebhook(): never {
  throw new Error('verifyWebhook runs in a webhook receiver, not in the dashboard');
}

export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}
