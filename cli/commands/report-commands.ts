import path from 'node:path';
import type { ReportJob, ReportJobCreated } from '#client/index.ts';
import { type CommandContext, type CommandGroup, EXIT, optionalIdempotencyKey, required } from '#cli/command.ts';
import * as help from '#cli/help.ts';
import { createReportProgressView } from '#cli/report-progress.ts';
import { REPORT_VERIFY_OPTIONS, verifyReport, verifyReportNeedsToken } from '#cli/verify-report.ts';

export const reportCommands: CommandGroup = {
  help: help.REPORT_HELP,
  commands: {
    create: {
      help: help.REPORT_CREATE_HELP,
      options: {
        user: { type: 'string' },
        wait: { type: 'boolean' },
        out: { type: 'string' },
        'idempotency-key': { type: 'string' },
        json: { type: 'boolean' },
      },
      run: async (context) => {
        const { values, client, out, err } = context;
        const created = await client.createReportJob(
          { userId: required(values, 'user') },
          optionalIdempotencyKey(values),
        );
        const { job } = created;
        if (created.rateLimit)
          err(
            `report requests left in this 10-minute window: ${created.rateLimit.remaining} of ${created.rateLimit.limit}`,
          );
        if (!values.wait && values.out === undefined) {
          if (values.json) out(JSON.stringify({ job }, null, 2));
          else out(`job ${job.jobId} ${job.status} (user ${job.userId})\nnext: onboarding report status ${job.jobId}`);
          return EXIT.ok;
        }
        if (!values.json) out(`job ${job.jobId} ${job.status} (user ${job.userId})`);
        return waitAndDownload(context, job.jobId, job);
      },
    },
    status: {
      help: help.REPORT_STATUS_HELP,
      options: { json: { type: 'boolean' } },
      positionals: { names: ['jobId'], required: 1 },
      run: async ({ positionals, values, client, out }) => {
        const job = await client.getReportJob(positionals[0]!);
        out(values.json ? JSON.stringify(job, null, 2) : describeJob(job));
        return EXIT.ok;
      },
    },
    download: {
      help: help.REPORT_DOWNLOAD_HELP,
      options: { out: { type: 'string' }, json: { type: 'boolean' } },
      positionals: { names: ['jobId'], required: 1 },
      run: async (context) => {
        const job = await context.client.getReportJob(context.positionals[0]!);
        return download(context, job);
      },
    },
    verify: {
      help: help.REPORT_VERIFY_HELP,
      options: REPORT_VERIFY_OPTIONS,
      positionals: { names: ['file'], required: 1 },
      needsToken: verifyReportNeedsToken,
      run: verifyReport,
    },
  },
};

async function waitAndDownload(context: CommandContext, jobId: string, known: ReportJobCreated): Promise<number> {
  const { client, io, values, out } = context;
  const view = createReportProgressView(io.stderr);
  let job;
  try {
    job = await client.waitForReport(jobId, {
      job: known,
      signal: io.signal,
      onProgress: (progress) => view.status(progress),
      onWait: (wait) => view.wait(wait),
    });
  } finally {
    view.finish();
  }
  if (values.out === undefined) {
    out(values.json ? JSON.stringify({ job }, null, 2) : describeJob(job));
    return EXIT.ok;
  }
  return download(context, job);
}

async function download({ client, io, values, out }: CommandContext, job: ReportJob): Promise<number> {
  const view = createReportProgressView(io.stderr);
  let downloaded;
  try {
    const target = values.out === undefined ? undefined : path.resolve(io.cwd, values.out as string);
    // Without --out the file takes the service's suggested name, which needs the address first.
    const destination =
      target ?? path.resolve(io.cwd, (await client.getReportDownloadUrl(job.jobId, { signal: io.signal })).filename);
    downloaded = await client.downloadReport(job.jobId, destination, {
      job,
      signal: io.signal,
      onProgress: (p) => view.download(p),
    });
  } finally {
    view.finish();
  }
  if (values.json) out(JSON.stringify({ job, download: downloaded }, null, 2));
  else
    out(
      `saved ${path.relative(io.cwd, downloaded.path) || downloaded.path} (${downloaded.sizeBytes} bytes, sha256 ${downloaded.sha256} verified)`,
    );
  return EXIT.ok;
}

function describeJob(job: ReportJob): string {
  const lines: Array<[string, unknown]> = [
    ['jobId', job.jobId],
    ['status', job.status],
    ['userId', job.userId],
    ['templateVersion', job.templateVersion],
    ['createdAt', job.createdAt],
    ['updatedAt', job.updatedAt],
  ];
  if (job.status === 'COMPLETE')
    lines.push(
      ['completedAt', job.completedAt],
      ['sizeBytes', job.sizeBytes],
      ['sha256', job.sha256],
      ['durationMs', job.durationMs],
    );
  if (job.status === 'FAILED') lines.push(['errorCode', job.errorCode], ['durationMs', job.durationMs]);
  return lines.map(([key, value]) => `${key.padEnd(16)}${String(value)}`).join('\n');
}
