import type { TestProject } from 'vitest/node';
import {
  emailEventPollers,
  reportPipelinePollers,
  sandboxWipePollers,
  webhookDeliveryPollers,
} from '#local/pollers.ts';
import { setUpLocalStack } from '#test/support/local-stack-setup.ts';

/**
 * The integration tier never loses SQS, so its pending webhook events are only those a test keeps
 * itself (the erasure's): they are republished hourly here, not every minute, so none is queued
 * while a test looks at it. Republishing is the fault tier's subject (every second there).
 */
const REPUBLISH_INTERVAL_MS = 3_600_000;

/**
 * One local stack for the whole integration tier. Tests read `inject('baseUrl' | 'endpoints' |
 * 'localEnv')`; copying `localEnv` into process.env gives their own SDK clients the same endpoints
 * and `tokenFor` (api-client.ts) the identity provider's key (LOCAL_KEYS_DIR) and issuer (JWT_ISSUER).
 */
export default function setup(project: TestProject): Promise<() => Promise<void>> {
  return setUpLocalStack(project, 'test', {
    pollers: [
      ...reportPipelinePollers(),
      ...webhookDeliveryPollers({ republishIntervalMs: REPUBLISH_INTERVAL_MS }),
      ...emailEventPollers(),
      ...sandboxWipePollers(),
    ],
  });
}
