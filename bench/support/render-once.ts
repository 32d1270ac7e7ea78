import type { SignaturePlaceholder } from '#shared/adapters/signing/pades-report-signer.ts';
import { performance } from 'node:perf_hooks';
import { PDFDocument } from 'pdf-lib';
import { renderUserReport } from '#shared/adapters/pdf/render-user-report.ts';
import { loadReportFonts } from '#shared/adapters/pdf/report-fonts.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import {
  GENERATED_AT,
  JOB_ID,
  ORGANIZATION_NAME,
  multiScriptUser,
  typicalUser,
  userWithMatches,
} from '#test/unit/reports/pdf/user-report-fixtures.ts';

/**
 * The PDF work the benchmark times, shared by the warm loop and the fresh-process run. As a
 * program (bundled like the worker): `node render-once.js <subject> [pepMatches]` times the first
 * render in a fresh process and prints `{"ms":..,"bytes":..}`. The worker reads no font at init:
 * the first render reads and parses the families its text needs, and that is in the time.
 */
/** `sandbox-report`: the typical report as a sandbox renders it, with its mark across every page and in its title. */
export type PdfSubject = 'empty' | 'report' | 'sandbox-report' | 'multi-script';

export function renderer(
  subject: PdfSubject,
  pepMatches: number,
  signaturePlaceholder?: SignaturePlaceholder,
): () => Promise<Uint8Array> {
  if (subject === 'empty') return emptyA4;
  const fonts = loadReportFonts();
  const user: UserRecord =
    subject === 'multi-script' ? multiScriptUser() : pepMatches === 0 ? typicalUser() : userWithMatches(pepMatches);
  return () =>
    renderUserReport({
      user,
      organizationName: ORGANIZATION_NAME,
      jobId: JOB_ID,
      generatedAt: GENERATED_AT,
      fonts,
      ...(subject === 'sandbox-report' && { sandbox: true }),
      ...(signaturePlaceholder && { signaturePlaceholder }),
    });
}

/** The baseline: pdf-lib writing an empty A4 page. */
async function emptyA4(): Promise<Uint8Array> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.addPage([595.28, 841.89]);
  return doc.save({ useObjectStreams: true });
}

async function renderOnce(subject: PdfSubject, pepMatches: number): Promise<void> {
  const render = renderer(subject, pepMatches);
  const startedAt = performance.now();
  const bytes = await render();
  process.stdout.write(JSON.stringify({ ms: performance.now() - startedAt, bytes: bytes.byteLength }));
}

// A CommonJS bundle, like the worker's: no top-level await.
if (process.argv[1]?.endsWith('render-once.js'))
  void renderOnce(process.argv[2] as PdfSubject, Number(process.argv[3] ?? 0));
