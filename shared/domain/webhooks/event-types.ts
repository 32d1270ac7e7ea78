/** The event types an endpoint subscribes to (docs/contract.md §9). */
export const WEBHOOK_EVENT_TYPES = [
  'report.completed',
  'report.failed',
  'onboarding_token.used',
  'onboarding_token.revoked',
] as const;
export type SubscribableEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** `webhook.test` goes only to the endpoint it was asked for, whatever it subscribes to. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';
export type WebhookEventType = SubscribableEventType | typeof WEBHOOK_TEST_EVENT;
