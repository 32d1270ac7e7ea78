import { systemClock } from '#shared/domain/clock.ts';
import { listReportJobs } from '#shared/domain/reports/list-report-jobs.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';
import { parseInput } from '#shared/http/validation.ts';
import { reportJobPageBody } from '#shared/presenters/report-job-bodies.ts';
import { reportJobListQuerySchema } from '#shared/schemas/report-job-schemas.ts';
import { apiFunction } from '#shared/wiring/api.ts';
import { reportJobListingFor } from '#shared/wiring/reports.ts';

const { config, guards } = apiFunction('ListReportJobs');
const listJobs = listReportJobs({ jobs: reportJobListingFor(config), clock: systemClock });

export const handler = createApiHandler({
  ...guards,
  requiredScope: 'reports:read',
  handle: async ({ event, principal }) => {
    const { limit, cursor, userId } = parseInput(reportJobListQuerySchema, event.queryStringParameters ?? {});
    return ok(reportJobPageBody(await listJobs({ orgId: principal.tenantKey, limit, cursor, userId })));
  },
});
