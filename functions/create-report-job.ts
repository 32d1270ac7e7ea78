import { requestReport } from '#shared/domain/reports/request-report.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { accepted } from '#shared/http/responses.ts';
import { BusinessMetric, metrics, MetricUnit } from '#shared/observability/metrics.ts';
import { reportJobCreatedBody } from '#shared/presenters/report-job-bodies.ts';
import { reportJobRequestSchema } from '#shared/schemas/report-job-schemas.ts';
import { apiFunction } from '#shared/wiring/api.ts';
import { idempotentRequestsFor } from '#shared/wiring/idempotency.ts';
import { auditTrailFor } from '#shared/wiring/audit.ts';
import { reportRequestPortsFor } from '#shared/wiring/report-requests.ts';
import { reportRateLimitFor } from '#shared/wiring/reports.ts';

const { config, guards } = apiFunction('CreateReportJob');
const requestReportJob = requestReport(reportRequestPortsFor(config));

export const handler = createApiHandler({
  ...guards,
  requiredScope: 'reports:write',
  audit: auditTrailFor(config),
  beforeBody: [reportRateLimitFor(config)],
  bodySchema: reportJobRequestSchema,
  idempotency: idempotentRequestsFor('POST /v1/document/api', config),
  handle: async ({ body, principal, answerBy, audit }) => {
    const { userId } = body;
    const job = await requestReportJob({
      orgId: principal.tenantKey,
      userId,
      answerBy,
      requestedBy: principal.subject,
    });
    await audit('report.requested', job.jobId);
    metrics.addMetric(BusinessMetric.ReportsRequested, MetricUnit.Count, 1);
    return accepted(reportJobCreatedBody(job), { location: `/v1/document/api/${job.jobId}` });
  },
});
