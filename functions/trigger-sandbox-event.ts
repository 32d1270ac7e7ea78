import { ForbiddenError } from '#shared/domain/errors.ts';
import { SANDBOX_EVENT_SCOPES, triggerSandboxEvent } from '#shared/domain/sandbox/sandbox-events.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { accepted } from '#shared/http/responses.ts';
import { sandboxEventBody } from '#shared/presenters/sandbox-event-bodies.ts';
import { sandboxEventRequestSchema } from '#shared/schemas/sandbox-event-schemas.ts';
import { apiFunction } from '#shared/wiring/api.ts';
import { auditTrailFor } from '#shared/wiring/audit.ts';
import { tokenEventsFor, tokenIssuingPortsFor } from '#shared/wiring/onboarding.ts';
import { reportRequestPortsFor } from '#shared/wiring/report-requests.ts';
import { webhookTestPortsFor } from '#shared/wiring/webhooks.ts';

const { config, guards } = apiFunction('TriggerSandboxEvent');
const trigger = triggerSandboxEvent({
  reports: reportRequestPortsFor(config),
  tokens: { ...tokenIssuingPortsFor(config), events: tokenEventsFor(config) },
  webhooks: webhookTestPortsFor(config),
});

/**
 * POST /v1/sandbox/events: 202 `{type, objectId}` once the objects behind the event are made; the
 * message follows through the live delivery path (docs/sandbox.md#triggered-events). A live token gets 404.
 */
export const handler = createApiHandler({
  ...guards,
  requiredScope: 'webhooks:manage',
  audit: auditTrailFor(config),
  bodySchema: sandboxEventRequestSchema,
  handle: async ({ body, principal, answerBy, requestId, audit }) => {
    const missing = SANDBOX_EVENT_SCOPES[body.type].find((scope) => !principal.scopes.has(scope));
    if (missing) throw new ForbiddenError(`token lacks the ${missing} scope`);
    const triggered = await trigger({
      orgId: principal.tenantKey,
      type: body.type,
      organizationName: principal.orgName ?? principal.tenant.orgId,
      answerBy,
      requestedBy: principal.subject,
      requestId,
    });
    for (const action of AUDITED[body.type]) await audit(action, triggered.objectId);
    return accepted(sandboxEventBody(triggered));
  },
});

/** What the live routes a trigger goes through record in the sandbox's audit trail. */
const AUDITED = {
  'report.completed': ['report.requested'],
  'report.failed': ['report.requested'],
  'onboarding_token.used': ['onboarding_token.created', 'onboarding_token.redeemed'],
  'onboarding_token.revoked': ['onboarding_token.created', 'onboarding_token.revoked'],
  'webhook.test': ['webhook.tested'],
} as const;
