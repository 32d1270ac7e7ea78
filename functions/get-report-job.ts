import { systemClock } from '#shared/domain/clock.ts';
import { getReportJob } from '#shared/domain/reports/read-report-job.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { reportJobIdFrom } from '#shared/http/path-parameters.ts';
import { ok } from '#shared/http/responses.ts';
import { reportJobBody } from '#shared/presenters/report-job-bodies.ts';
import { apiFunction } from '#shared/wiring/api.ts';
import { reportJobsFor } from '#shared/wiring/reports.ts';

const { config, guards } = apiFunction('GetReportJob');
const readJob = getReportJob({ jobs: reportJobsFor(config), clock: systemClock });

export const handler = createApiHandler({
  ...guards,
  requiredScope: 'reports:read',
  handle: async ({ event, principal }) =>
    ok(reportJobBody(await readJob({ orgId: principal.tenantKey, jobId: reportJobIdFrom(event) }))),
});
