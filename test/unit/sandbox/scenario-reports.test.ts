import { PDFDocument } from 'pdf-lib';
import { describe, expect, it, vi } from 'vitest';
import { SANDBOX_REPORT_MARK } from '#shared/adapters/pdf/layout-user-report.ts';
import { pdfReportRenderer } from '#shared/adapters/pdf/render-user-report.ts';
import { loadReportFonts } from '#shared/adapters/pdf/report-fonts.ts';
import { PostgresUserDirectory } from '#shared/adapters/postgres/user-directory.ts';
import { tenantKey } from '#shared/domain/identity/tenant.ts';
import type { ReportRedelivery, ReportSigner } from '#shared/domain/reports/ports.ts';
import { processReportJob } from '#shared/domain/reports/process-report-job.ts';
import { listScenarios } from '#shared/domain/sandbox/scenarios.ts';
import { emittingReportEvents } from '#shared/domain/webhooks/webhook-events.ts';
import { reportJobBody } from '#shared/presenters/report-job-bodies.ts';
import { T0 } from '#test/support/fixtures/defaults.ts';
import { reportJob } from '#test/support/fixtures/report-jobs.ts';
import { FakeClock, FakeReportStorage, InMemoryReportJobStore } from '#test/unit/reports/fakes.ts';
import { InMemoryPendingEvents, RecordingQueue } from '#test/unit/webhooks/fakes.ts';
import { pdfText, squashed } from '#test/unit/reports/pdf/pdf-text.ts';

/**
 * The drift test of docs/contract.md §23: every scenario `GET /v1/sandbox/scenarios` lists is run
 * through the worker's use case with the real renderer, and its job ends as the listing says
 * (status, error code, when, how many pages), marked as a sandbox report on every page, by the paths a live job takes (the failure and
 * completion events included). A scenario whose listing and behaviour differ fails here.
 */

const orgId = 'acme';
const sandboxKey = tenantKey({ orgId, mode: 'sandbox' });
const fonts = loadReportFonts();
const firstAttempt = { isFinalAttempt: false, leaseMs: 60_000 };

function worker() {
  const clock = new FakeClock(T0);
  const store = new InMemoryReportJobStore(clock);
  const events = new RecordingQueue();
  const storage = new FakeReportStorage();
  const missingGlyphs: number[] = [];
  const redeliverLater = vi.fn<ReportRedelivery>(async () => {});
  const sign = vi.fn<ReportSigner>(async (pdf) => pdf);
  const process = processReportJob({
    jobs: emittingReportEvents(store, {
      queue: events,
      pending: new InMemoryPendingEvents(),
      clock,
      reportJobPayload: reportJobBody,
      onKept: vi.fn(),
      onLost: vi.fn(),
    }),
    // No statement may run: scenario users come from their definition.
    users: new PostgresUserDirectory({ query: () => Promise.reject(new Error('no statement expected')) }, () =>
      clock.now(),
    ),
    storage,
    render: pdfReportRenderer(fonts, (codePoint) => missingGlyphs.push(codePoint)),
    sign,
    clock,
    templateVersion: 'v-test',
    redeliverLater,
  });
  return { clock, store, events, storage, missingGlyphs, redeliverLater, sign, process };
}

describe.each(listScenarios(orgId, T0))('sandbox scenario $id', (scenario) => {
  it('ends its report job as GET /v1/sandbox/scenarios says', async () => {
    const { clock, store, events, storage, missingGlyphs, redeliverLater, sign, process } = worker();
    const job = store.seed(reportJob({ orgId: sandboxKey, userId: scenario.id }));
    const message = { orgId: sandboxKey, jobId: job.jobId };
    clock.advance(500);

    if (scenario.report.status === 'FAILED') {
      const result = await process(message, firstAttempt);
      expect(result).toEqual({ outcome: 'failed', job: expect.anything(), errorCode: scenario.report.errorCode });
      expect(await store.get(job.jobId)).toMatchObject({ status: 'FAILED', errorCode: scenario.report.errorCode });
      expect(events.events.map((event) => event.type)).toEqual(['report.failed']);
      expect(storage.objects.size).toBe(0);
      return;
    }

    const waitSeconds = scenario.report.completesAfterSeconds;
    if (waitSeconds > 0) {
      // Put off without taking the job: its message comes back when the scenario's time has come.
      expect(await process(message, firstAttempt)).toEqual({ outcome: 'skipped', reason: 'deferred' });
      expect(redeliverLater).toHaveBeenCalledExactlyOnceWith(message, waitSeconds);
      expect(await store.get(job.jobId)).toMatchObject({ status: 'PENDING' });
      clock.advance(waitSeconds * 1000 - 1_000);
      expect(await process(message, firstAttempt)).toEqual({ outcome: 'skipped', reason: 'deferred' });
      expect(redeliverLater).toHaveBeenLastCalledWith(message, 1);
      clock.advance(1_000);
    }
    const result = await process(message, firstAttempt);
    expect(result).toMatchObject({ outcome: 'completed' });
    const completed = await store.get(job.jobId);
    expect(completed).toMatchObject({ status: 'COMPLETE' });
    expect(Date.parse(completed!.completedAt!) - Date.parse(job.createdAt)).toBeGreaterThanOrEqual(waitSeconds * 1000);
    expect(events.events.map((event) => event.type)).toEqual(['report.completed']);
    expect(sign).toHaveBeenCalledWith(expect.any(Uint8Array), expect.any(Date), 'sandbox');

    const pdf = [...storage.objects.values()][0]!.pdf;
    const document = await PDFDocument.load(pdf, { updateMetadata: false });
    expect(document.getPageCount()).toBe(scenario.report.pages);
    expect(document.getTitle()).toContain(SANDBOX_REPORT_MARK);
    // Every character has a glyph: names and matches in every script render.
    expect(missingGlyphs).toEqual([]);
    for (let page = 1; page <= document.getPageCount(); page++) {
      expect(squashed(pdfText(pdf, page))).toContain(squashed(SANDBOX_REPORT_MARK));
    }
  });
});

describe('a live job of a user with a scenario id', () => {
  it('is an ordinary job: not put off, not failed, not marked', async () => {
    const { clock, store, redeliverLater, process } = worker();
    const job = store.seed(reportJob({ orgId, userId: 'sbx-fail' }));
    clock.advance(500);
    // The live key has no scenario users: the directory asks the database, which has none here.
    await expect(process({ orgId, jobId: job.jobId }, firstAttempt)).rejects.toThrow('no statement expected');
    expect(redeliverLater).not.toHaveBeenCalled();
  });
});
