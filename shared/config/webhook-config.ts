import * as v from 'valibot';
import { ConfigurationError, loadConfig, requiredString } from './load-config.ts';

/**
 * Webhook settings. `WEBHOOK_LOCAL_MODE=true` is set by the local stack alone: it allows `http`
 * and loopback receivers and compresses the retry schedule to seconds. Secrets are sealed with
 * the KMS key `WEBHOOK_SECRETS_KEY_ID` in AWS, or the local AES key `WEBHOOK_LOCAL_SECRET_KEY`.
 */
export const webhookQueueEnvironment = { WEBHOOK_QUEUE_URL: requiredString('WEBHOOK_QUEUE_URL') };

/** What a function whose state changes are events needs: the queue, and the table where events wait while it is unreachable. */
export const webhookPublishingEnvironment = {
  ...webhookQueueEnvironment,
  WEBHOOKS_TABLE_NAME: requiredString('WEBHOOKS_TABLE_NAME'),
};

export const webhookEnvironment = {
  WEBHOOKS_TABLE_NAME: requiredString('WEBHOOKS_TABLE_NAME'),
  WEBHOOK_LOCAL_MODE: v.optional(v.picklist(['true', 'false']), 'false'),
  WEBHOOK_SECRETS_KEY_ID: v.optional(v.pipe(v.string(), v.minLength(1))),
  WEBHOOK_LOCAL_SECRET_KEY: v.optional(v.pipe(v.string(), v.minLength(1))),
};

export type SealerSettings = { kmsKeyId: string } | { localKey: string };

export function sealerSettingsFrom(config: {
  WEBHOOK_SECRETS_KEY_ID?: string | undefined;
  WEBHOOK_LOCAL_SECRET_KEY?: string | undefined;
}): SealerSettings {
  if (config.WEBHOOK_SECRETS_KEY_ID) return { kmsKeyId: config.WEBHOOK_SECRETS_KEY_ID };
  if (config.WEBHOOK_LOCAL_SECRET_KEY) return { localKey: config.WEBHOOK_LOCAL_SECRET_KEY };
  throw new ConfigurationError(
    'Invalid configuration:\n  set WEBHOOK_SECRETS_KEY_ID (KMS key) or WEBHOOK_LOCAL_SECRET_KEY (local stack)',
  );
}

/** The delivery functions also move messages to (and retry them in) the slow lane's queue. */
export const webhookSlowQueueEnvironment = { WEBHOOK_SLOW_QUEUE_URL: requiredString('WEBHOOK_SLOW_QUEUE_URL') };

export function loadWebhookConfig() {
  return loadConfig(v.object({ ...webhookEnvironment, ...webhookQueueEnvironment, ...webhookSlowQueueEnvironment }));
}
