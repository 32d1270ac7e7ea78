import { renderUserReport } from '#shared/adapters/pdf/render-user-report.ts';
import { loadReportFonts } from '#shared/adapters/pdf/report-fonts.ts';
import type { SignaturePlaceholder } from '#shared/adapters/signing/pades-report-signer.ts';
import { GENERATED_AT, JOB_ID, ORGANIZATION_NAME, typicalUser } from '#test/unit/reports/pdf/user-report-fixtures.ts';

/** The typical user's report as the worker renders it before signing: with `signaturePlaceholder`'s room, or none. */
export function renderTypicalReport(signaturePlaceholder?: SignaturePlaceholder): Promise<Uint8Array> {
  return renderUserReport({
    user: typicalUser(),
    organizationName: ORGANIZATION_NAME,
    jobId: JOB_ID,
    generatedAt: GENERATED_AT,
    fonts: loadReportFonts(),
    ...(signaturePlaceholder && { signaturePlaceholder }),
  });
}
