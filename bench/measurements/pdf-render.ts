import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { build } from 'esbuild';
import { esbuildOptionsFor } from '#lib/bundling.ts';
import { layoutUserReport } from '#shared/adapters/pdf/layout-user-report.ts';
import { loadReportFonts } from '#shared/adapters/pdf/report-fonts.ts';
import { Typesetter } from '#shared/adapters/pdf/typesetter.ts';
import { REPORT_TEMPLATE_VERSION } from '#shared/domain/reports/report-template-version.ts';
import {
  GENERATED_AT,
  JOB_ID,
  ORGANIZATION_NAME,
  userWithMatches,
} from '#test/unit/reports/pdf/user-report-fixtures.ts';
import { single, summarize, type Row } from '#bench/report.ts';
import { copyReportFonts } from '#bench/support/bundles.ts';
import type { Measurement } from '#bench/support/measurement.ts';
import { renderer, type PdfSubject } from '#bench/support/render-once.ts';
import { timeEach } from '#bench/support/timing.ts';
import { ensureLocalReportSigningKey } from '#local/report-signing-key.ts';
import { LocalReportSigningKey } from '#shared/adapters/signing/local-report-signing-key.ts';
import { padesReportSigner, reportSignaturePlaceholder } from '#shared/adapters/signing/pades-report-signer.ts';

/**
 * 4. The report PDF: the typical user (three pages with the page-1 summary, Latin), a user with enough screening matches for
 * ten pages, and a user whose name, address and matches are in Chinese, Arabic and Devanagari.
 * Warm: the median of repeated renders in this process. First render: a fresh process running the
 * renderer bundled like the worker, timed from the call, which reads and parses the font families
 * the text needs — what the first job after a cold start pays. Size: the bytes stored in S3.
 * Baseline: pdf-lib writing an empty A4 page, measured the same ways.
 */
const WARM = { warmup: 5, runs: 30 };
const FRESH_PROCESSES = 5;
const TYPICAL_MAX_MS = 25;
const TYPICAL_MAX_KB = 80;
/** Issue 12: name, address and matches in CJK, Arabic and Devanagari. */
const MULTI_SCRIPT_MAX_MS = 150;
const MULTI_SCRIPT_MAX_KB = 400;
/** Contract §21's budgets: signing adds at most 15 ms to a report; a multi-script report rendered and signed within 200 ms. */
const SIGNING_MAX_MS = 15;
const MULTI_SCRIPT_SIGNED_MAX_MS = 200;

export default {
  title: '4 PDF render',
  async run(context) {
    const tenPageMatches = matchesForPages(10);
    const subjects = [
      {
        label: 'typical report (3 pages)',
        subject: 'report' as PdfSubject,
        matches: 0,
        budget: { ms: TYPICAL_MAX_MS, kb: TYPICAL_MAX_KB },
      },
      {
        // Contract §23: a sandbox report renders within the live report's budgets.
        label: 'typical sandbox report (3 pages, marked)',
        subject: 'sandbox-report' as PdfSubject,
        matches: 0,
        budget: { ms: TYPICAL_MAX_MS, kb: TYPICAL_MAX_KB },
      },
      {
        label: '10-page report',
        subject: 'report' as PdfSubject,
        matches: tenPageMatches,
        budget: undefined as { ms: number; kb: number } | undefined,
      },
      {
        label: 'CJK + Arabic + Devanagari report',
        subject: 'multi-script' as PdfSubject,
        matches: 0,
        budget: { ms: MULTI_SCRIPT_MAX_MS, kb: MULTI_SCRIPT_MAX_KB },
      },
    ];

    const warm = async (subject: PdfSubject, matches: number) => {
      const render = renderer(subject, matches);
      const bytes = (await render()).byteLength;
      return { samples: await timeEach(render, WARM), kb: bytes / 1024 };
    };
    const emptyWarm = await warm('empty', 0);

    const script = path.join(context.workDir, 'render-once', 'render-once.js');
    await build(esbuildOptionsFor('bench/support/render-once.ts', script));
    const env = { ...process.env, ...(await copyReportFonts(path.dirname(script))) };
    const fresh = (subject: PdfSubject, matches: number): number[] =>
      Array.from({ length: FRESH_PROCESSES }, () => {
        const result = spawnSync(process.execPath, [script, subject, String(matches)], {
          env,
          encoding: 'utf8',
          timeout: 60_000,
        });
        if (result.status !== 0) throw new Error(`render-once ${subject} failed: ${result.stderr.slice(0, 1000)}`);
        return (JSON.parse(result.stdout) as { ms: number }).ms;
      });
    const emptyFresh = fresh('empty', 0);

    const rows: Row[] = [];
    for (const { label, subject, matches, budget } of subjects) {
      const measured = await warm(subject, matches);
      const firstRender = fresh(subject, matches);
      context.log(`PDF: ${label} done`);
      rows.push(
        {
          measurement: this.title,
          subject: `${label}: render, warm`,
          unit: 'ms',
          value: summarize(measured.samples),
          baseline: { subject: 'empty A4', value: summarize(emptyWarm.samples) },
          ...(budget ? { budget: { on: 'median' as const, max: budget.ms } } : {}),
        },
        {
          measurement: this.title,
          subject: `${label}: first render, fresh process`,
          unit: 'ms',
          value: summarize(firstRender),
          baseline: { subject: 'empty A4', value: summarize(emptyFresh) },
        },
        {
          measurement: this.title,
          subject: `${label}: size`,
          unit: 'KB',
          value: single(measured.kb),
          baseline: { subject: 'empty A4', value: single(emptyWarm.kb) },
          ...(budget ? { budget: { on: 'median' as const, max: budget.kb } } : {}),
          ...(matches > 0 ? { note: `${matches} PEP matches give 10 pages` } : {}),
        },
      );
    }
    rows.push(...(await signingRows(this.title, context.workDir)));
    return rows;
  },
} satisfies Measurement;

/**
 * What signing adds (contract §21), with a local key (`.local/report-signing-key.json`'s kind, in
 * the work directory), as the worker signs: the report rendered with its empty signature, then the
 * signature filled in. Same run, pair by pair: each signed render of the typical report is timed
 * right after an unsigned one, and the row is the difference. Then render + sign of the
 * multi-script report. The KMS path adds one `kms:Sign` round trip instead of the local
 * signature (its one call per report is a unit test).
 */
async function signingRows(measurement: string, workDir: string): Promise<Row[]> {
  const key = new LocalReportSigningKey(await ensureLocalReportSigningKey(path.join(workDir, 'report-signing')));
  const sign = padesReportSigner(key);
  const placeholder = reportSignaturePlaceholder();
  const signedAt = new Date(); // the fixtures' GENERATED_AT predates the key's certificate
  const signedRender = (subject: PdfSubject) => {
    const render = renderer(subject, 0, placeholder);
    return async () => sign(await render(), signedAt);
  };
  const signingAdds = async (subject: PdfSubject) => {
    const pair = { unsigned: renderer(subject, 0), signed: signedRender(subject) };
    await timeEach(pair.signed, { warmup: WARM.warmup, runs: 0 });
    const unsignedSamples: number[] = [];
    const added: number[] = [];
    for (let run = 0; run < WARM.runs; run++) {
      const [unsigned] = await timeEach(pair.unsigned, { warmup: run === 0 ? WARM.warmup : 0, runs: 1 });
      const [signed] = await timeEach(pair.signed, { warmup: 0, runs: 1 });
      unsignedSamples.push(unsigned!);
      added.push(signed! - unsigned!);
    }
    return { unsignedSamples, added };
  };
  const typical = await signingAdds('report');
  // The sandbox signs with a key of its own; its key is the same kind as live's, so one local key times both.
  const sandbox = await signingAdds('sandbox-report');
  const signingAddsRow = (label: string, pairs: { unsignedSamples: number[]; added: number[] }): Row => ({
    measurement,
    subject: `${label}: what signing adds to a render (PAdES, local key), warm`,
    unit: 'ms',
    value: summarize(pairs.added),
    baseline: { subject: 'the unsigned render, same run', value: summarize(pairs.unsignedSamples) },
    budget: { on: 'median', max: SIGNING_MAX_MS },
  });
  const multiScriptRender = await timeEach(renderer('multi-script', 0), WARM);
  const multiScriptRenderAndSign = await timeEach(signedRender('multi-script'), WARM);
  return [
    signingAddsRow('typical report', typical),
    signingAddsRow('typical sandbox report', sandbox),
    {
      measurement,
      subject: 'CJK + Arabic + Devanagari report: render + sign, warm',
      unit: 'ms',
      value: summarize(multiScriptRenderAndSign),
      baseline: { subject: 'render alone, same run', value: summarize(multiScriptRender) },
      budget: { on: 'median', max: MULTI_SCRIPT_SIGNED_MAX_MS },
    },
  ];
}

/** The fewest PEP matches whose report has `pages` pages. */
function matchesForPages(pages: number): number {
  const typeface = new Typesetter(loadReportFonts());
  for (let matches = 1; matches <= 200; matches++) {
    const input = {
      user: userWithMatches(matches),
      organizationName: ORGANIZATION_NAME,
      jobId: JOB_ID,
      generatedAt: GENERATED_AT,
    };
    if (layoutUserReport({ ...input, templateVersion: REPORT_TEMPLATE_VERSION }, typeface).pages.length === pages)
      return matches;
  }
  throw new Error(`no screening size gives a ${pages}-page report`);
}
