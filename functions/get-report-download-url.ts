import { getReportDownload } from '#shared/domain/reports/read-report-job.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { reportJobIdFrom } from '#shared/http/path-parameters.ts';
import { ok } from '#shared/http/responses.ts';
import { reportDownloadBody } from '#shared/presenters/report-job-bodies.ts';
import { apiFunction } from '#shared/wiring/api.ts';
import { auditTrailFor } from '#shared/wiring/audit.ts';
import { reportDownloadPortsFor } from '#shared/wiring/reports.ts';

const { config, guards } = apiFunction('GetReportDownloadUrl');
const downloadFor = getReportDownload(reportDownloadPortsFor(config));

/** Authorization and organization are checked on every call; addresses are never cached. */
export const handler = createApiHandler({
  ...guards,
  requiredScope: 'reports:read',
  audit: auditTrailFor(config),
  handle: async ({ event, principal, audit }) => {
    const jobId = reportJobIdFrom(event);
    const download = await downloadFor({ orgId: principal.tenantKey, jobId });
    await audit('report.download_url_issued', jobId);
    return ok(reportDownloadBody(download));
  },
});
