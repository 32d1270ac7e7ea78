import { describe, expect, it } from 'vitest';
import { createReportProgressView } from '#cli/report-progress.ts';
import { reportJobBodyIn } from '#test/support/fixtures/report-jobs.ts';

const JOB = reportJobBodyIn('PENDING', { jobId: 'j' });

function stream(isTTY: boolean) {
  let text = '';
  return { isTTY, write: (chunk: string) => (text += chunk), text: () => text };
}

describe('report progress view', () => {
  it('writes plain lines for status changes, retries and the finished download when not on a terminal', () => {
    const out = stream(false);
    const view = createReportProgressView(out);
    view.status({ jobId: 'j', status: 'PENDING', previousStatus: undefined, job: JOB, elapsedMs: 0 });
    view.wait({ reason: 'schedule', delayMs: 4000, elapsedMs: 0 });
    view.wait({ reason: 'retry-after', delayMs: 20_000, elapsedMs: 4000, error: new Error('503 SERVICE_UNAVAILABLE') });
    view.status({
      jobId: 'j',
      status: 'COMPLETE',
      previousStatus: 'PENDING',
      job: reportJobBodyIn('COMPLETE', { jobId: 'j' }),
      elapsedMs: 24_000,
    });
    view.download({ receivedBytes: 10, totalBytes: 20 });
    view.download({ receivedBytes: 20, totalBytes: 20 });
    view.finish();

    expect(out.text()).toBe(
      [
        'PENDING after 0 s',
        'status check failed (503 SERVICE_UNAVAILABLE); next in 20 s',
        'COMPLETE (was PENDING) after 24 s',
        'downloaded 20 bytes',
        '',
      ].join('\n'),
    );
  });

  it('rewrites one live line on a terminal, keeps a line per status change, and clears it when done', () => {
    const out = stream(true);
    let now = 1_000;
    const view = createReportProgressView(out, () => now);
    view.status({ jobId: 'j', status: 'PENDING', previousStatus: undefined, job: JOB, elapsedMs: 0 });
    view.wait({ reason: 'schedule', delayMs: 4000, elapsedMs: 0 });
    now += 1_000;
    view.status({
      jobId: 'j',
      status: 'IN_PROGRESS',
      previousStatus: 'PENDING',
      job: { ...JOB, status: 'IN_PROGRESS' },
      elapsedMs: 4000,
    });
    view.finish();

    const text = out.text();
    expect(text).toContain('\r\u001b[2K• PENDING (0 s)\n');
    expect(text).toContain('PENDING 0 s, next check in 4 s');
    expect(text).toContain('✔ PENDING → IN_PROGRESS (4 s)\n');
    expect(text.endsWith('\r\u001b[2K')).toBe(true);
  });
});
