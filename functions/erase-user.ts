import { systemClock } from '#shared/domain/clock.ts';
import { eraseUser } from '#shared/domain/users/erase-user.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { userIdFrom } from '#shared/http/path-parameters.ts';
import { noContent } from '#shared/http/responses.ts';
import { logger } from '#shared/observability/logger.ts';
import { apiFunction } from '#shared/wiring/api.ts';
import { auditTrailFor } from '#shared/wiring/audit.ts';
import { onboardingTokensFor } from '#shared/wiring/onboarding.ts';
import { reportJobsFor, reportStorageFor } from '#shared/wiring/reports.ts';
import { userErasurePortsFor } from '#shared/wiring/users.ts';
import { webhookEventPublishing } from '#shared/wiring/webhook-events.ts';

const { config, guards } = apiFunction('EraseUser');
const publishing = webhookEventPublishing(config);
const erase = eraseUser({
  ...userErasurePortsFor(config),
  // An open job it ends is a report.failed event (USER_ERASED, ids only) like any other failure.
  jobs: reportJobsFor(config, publishing),
  storage: reportStorageFor(config),
  tokens: onboardingTokensFor(config),
  pendingEvents: publishing.pending,
  clock: systemClock,
});

/**
 * DELETE /v1/users/{id}: the user, their report jobs and PDFs, the tokens sent to their e-mail and
 * the pending webhook events naming it; 204.
 */
export const handler = createApiHandler({
  ...guards,
  requiredScope: 'users:erase',
  audit: auditTrailFor(config),
  handle: async ({ event, principal, audit }) => {
    const userId = userIdFrom(event);
    const summary = await erase({
      orgId: principal.tenantKey,
      userId,
      started: () => audit('user.erasure_started', userId, { required: true }),
    });
    // Counts only: the log keeps nothing of the person.
    logger.info('user erased', { ...summary });
    await audit('user.erased', userId);
    return noContent();
  },
});
