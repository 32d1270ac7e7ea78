import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderUserReport } from '#shared/adapters/pdf/render-user-report.ts';
import { loadReportFonts } from '#shared/adapters/pdf/report-fonts.ts';
import { LocalReportSigningKey } from '#shared/adapters/signing/local-report-signing-key.ts';
import {
  padesReportSigner,
  reportSignaturePlaceholder,
  type SignaturePlaceholder,
} from '#shared/adapters/signing/pades-report-signer.ts';
import { ensureLocalReportSigningKey } from '#local/report-signing-key.ts';
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

/**
 * A report rendered and signed as the worker does it (same renderer, placeholder and signer),
 * with a fresh key of its own in a temporary keys directory: its certificate is published nowhere.
 */
export async function reportSignedByAnotherKey(): Promise<{ pdf: Uint8Array; certificatePem: string }> {
  const keysDir = await mkdtemp(join(tmpdir(), 'other-signing-key-'));
  try {
    const key = new LocalReportSigningKey(await ensureLocalReportSigningKey(keysDir));
    const unsigned = await renderTypicalReport(reportSignaturePlaceholder());
    const signedAt = new Date();
    const pdf = await padesReportSigner(key)(unsigned, signedAt);
    return { pdf, certificatePem: (await key.certificateAt(signedAt)).pem };
  } finally {
    await rm(keysDir, { recursive: true, force: true });
  }
}
