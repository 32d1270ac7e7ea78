import { randomUUID } from 'node:crypto';
import { ConflictError } from '#shared/domain/errors.ts';
import type { Scope } from '#shared/domain/identity/staff-roles.ts';
import { isSandbox, tenantOfKey } from '#shared/domain/identity/tenant.ts';
import {
  createOnboardingToken,
  type CreateOnboardingTokenDeps,
} from '#shared/domain/onboarding/create-onboarding-token.ts';
import {
  redeemOnboardingToken,
  revokeOnboardingToken,
  type TokenLifecycleDeps,
} from '#shared/domain/onboarding/token-lifecycle.ts';
import { requestReport, type RequestReportDeps } from '#shared/domain/reports/request-report.ts';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT } from '#shared/domain/webhooks/event-types.ts';
import { testWebhookEndpoint, type WebhookManagementDeps } from '#shared/domain/webhooks/manage-webhook-endpoints.ts';
import type { WebhookQueue } from '#shared/domain/webhooks/ports.ts';
import type { ScenarioId } from './scenarios.ts';

/** Every type of the webhook event enum, and `webhook.test`: what POST /v1/sandbox/events triggers. */
export const SANDBOX_EVENT_TYPES = [...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT] as const;
export type SandboxEventType = (typeof SANDBOX_EVENT_TYPES)[number];

/**
 * The scopes of the live routes whose objects a trigger makes (besides `sandbox`, and the route's
 * own `webhooks:manage`: it sends messages to the sandbox's endpoints on demand, as the test route
 * does): a token that could not make the objects itself cannot have them made for it.
 */
export const SANDBOX_EVENT_SCOPES: Readonly<Record<SandboxEventType, readonly Scope[]>> = {
  'report.completed': ['reports:write'],
  'report.failed': ['reports:write'],
  'onboarding_token.used': ['onboarding:write', 'onboarding:redeem'],
  'onboarding_token.revoked': ['onboarding:write'],
  'webhook.test': [],
};

/** The scenario user whose report job ends in each report event. */
const REPORT_EVENT_SCENARIOS = {
  'report.completed': 'sbx-clear',
  'report.failed': 'sbx-fail',
} as const satisfies Record<string, ScenarioId>;

/**
 * A trigger's token goes to an address of its own (the e-mail guard allows one live token per
 * address, and the per-address quota counts 5 an hour), at the SES simulator's success address:
 * the mailbox keeps it as a delivered e-mail, never a bounce or a complaint.
 */
const eventRecipient = (): string => `success+${randomUUID()}@simulator.amazonses.com`;

export interface SandboxEventDeps {
  reports: RequestReportDeps;
  tokens: CreateOnboardingTokenDeps & TokenLifecycleDeps;
  webhooks: WebhookManagementDeps & { queue: WebhookQueue };
}

export interface TriggeredSandboxEvent {
  type: SandboxEventType;
  /** The object the event's `data` describes: a report job's id, a token's id, or (webhook.test) an endpoint's id. */
  objectId: string;
}

/**
 * Primary course: make the real sandbox objects behind the event through the live use cases, so
 * the event is emitted, queued, signed, delivered and logged by the path a live one takes, and its
 * `data` describes objects the API returns:
 * - `report.completed` / `report.failed`: a report job of `sbx-clear` / `sbx-fail`, which the
 *   worker completes or fails (the event follows when it does);
 * - `onboarding_token.used` / `.revoked`: a token issued (its e-mail kept by the sandbox's mailbox)
 *   then redeemed or revoked;
 * - `webhook.test`: a test message to each of the sandbox's endpoints (409 with none).
 * Refuses a live key: the route is the sandbox's alone and this must never make live objects.
 */
export function triggerSandboxEvent(deps: SandboxEventDeps) {
  const requestReportJob = requestReport(deps.reports);
  const issueToken = createOnboardingToken(deps.tokens);
  const redeemToken = redeemOnboardingToken(deps.tokens);
  const revokeToken = revokeOnboardingToken(deps.tokens);
  const testEndpoint = testWebhookEndpoint(deps.webhooks);
  return async (input: {
    orgId: string;
    type: SandboxEventType;
    organizationName: string;
    answerBy: Date;
    requestedBy: string | undefined;
    requestId: string;
  }): Promise<TriggeredSandboxEvent> => {
    if (!isSandbox(tenantOfKey(input.orgId))) throw new Error('sandbox events are triggered in a sandbox alone');
    const { orgId, type } = input;
    switch (type) {
      case 'report.completed':
      case 'report.failed': {
        const job = await requestReportJob({
          orgId,
          userId: REPORT_EVENT_SCENARIOS[type],
          answerBy: input.answerBy,
          requestedBy: input.requestedBy,
        });
        return { type, objectId: job.jobId };
      }
      case 'onboarding_token.used':
      case 'onboarding_token.revoked': {
        const issued = await issueToken({
          answerBy: input.answerBy,
          orgId,
          organizationName: input.organizationName,
          email: eventRecipient(),
          firstName: 'Sandbox',
          lastName: 'Event',
        });
        if (type === 'onboarding_token.used') {
          await redeemToken({ orgId, onboardingToken: issued.onboardingToken });
        } else {
          await revokeToken({ orgId, tokenId: issued.tokenId, revokedBy: input.requestedBy });
        }
        return { type, objectId: issued.tokenId };
      }
      case 'webhook.test': {
        const endpoints = await deps.webhooks.endpoints.list(orgId);
        const [first] = endpoints;
        if (!first) throw new ConflictError('the sandbox has no webhook endpoint to send webhook.test to');
        for (const endpoint of endpoints) {
          await testEndpoint({ orgId, endpointId: endpoint.endpointId, requestId: input.requestId });
        }
        return { type, objectId: first.endpointId };
      }
    }
  };
}
