import { useState } from 'preact/hooks';
import type { ReportVerification } from '#client/index.ts';
import { api } from '#web/src/api.ts';
import { ErrorNotice, formatInstant, PageHeading } from '#web/src/components.tsx';

/** What each failed check means to someone holding the file. */
const FAILURE_TITLES: Record<Extract<ReportVerification, { valid: false }>['failure'], string> = {
  NOT_SIGNED: 'This file has no signature',
  BYTE_RANGE: 'Bytes were added to or moved in this file after it was signed',
  MALFORMED_SIGNATURE: 'This file’s signature cannot be read',
  DIGEST_MISMATCH: 'This file was changed after it was signed',
  SIGNATURE_INVALID: 'This file’s signature is not valid',
  UNKNOWN_SIGNER: 'This file was not signed by this service',
};

/**
 * Verify a report: checks a downloaded report's signature in the browser against the published
 * signing certificates (GET /v1/report-signing-certificates); the file never leaves the page. The
 * checker (pkijs) is loaded when a file is chosen, so it weighs nothing on the dashboard's first load.
 */
export function VerifyReportPage() {
  const [checked, setChecked] = useState<{ name: string; verification: ReportVerification }>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [dragging, setDragging] = useState(false);

  async function check(file: File | undefined) {
    if (!file) return;
    setBusy(true);
    setError(undefined);
    setChecked(undefined);
    try {
      const [{ verifyReportSignature }, { certificates }, bytes] = await Promise.all([
        import('#client/verify-report.ts'),
        api.listReportSigningCertificates(),
        file.arrayBuffer(),
      ]);
      setChecked({ name: file.name, verification: await verifyReportSignature(new Uint8Array(bytes), certificates) });
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section>
      <PageHeading>Verify a report</PageHeading>
      <p>
        Checks that a report is exactly as this service signed it: no byte changed or added since, and signed with one
        of the service’s published certificates. The check runs in this browser; the file is not uploaded.
      </p>
      <div
        class={`card drop-zone${dragging ? ' dragging' : ''}`}
        data-testid="verify-drop-zone"
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(event) => {
          event.preventDefault();
          setDragging(false);
          void check(event.dataTransfer?.files[0]);
        }}
      >
        <label for="verify-report-file">Report (PDF)</label>
        <input
          id="verify-report-file"
          type="file"
          accept="application/pdf,.pdf"
          disabled={busy}
          onChange={(event) => void check(event.currentTarget.files?.[0])}
        />
        <p class="hint">or drop the file here</p>
      </div>
      {busy ? <p role="status">Checking…</p> : null}
      <ErrorNotice error={error} context="The check could not run" />
      {checked ? <VerificationOutcome {...checked} /> : null}
    </section>
  );
}

function VerificationOutcome({ name, verification }: { name: string; verification: ReportVerification }) {
  const { signer } = verification;
  return (
    <div class={`notice ${verification.valid ? 'success' : 'error'}`} role="status" data-testid="verification-outcome">
      <p>
        <strong>
          {verification.valid ? `${name}: the signature is valid` : `${name}: ${FAILURE_TITLES[verification.failure]}`}
        </strong>
      </p>
      {verification.valid ? null : <p>{verification.message}</p>}
      {signer ? (
        <dl>
          <dt>Signed by</dt>
          <dd>{signer.commonName}</dd>
          <dt>Certificate SHA-256</dt>
          <dd>
            <code>{signer.sha256Fingerprint}</code>
          </dd>
          <dt>Certificate valid</dt>
          <dd>
            {formatInstant(signer.notBefore)} to {formatInstant(signer.notAfter)}
          </dd>
          {verification.valid && verification.signingTime ? (
            <>
              <dt>Signed at (as the signer states it)</dt>
              <dd>{formatInstant(verification.signingTime)}</dd>
            </>
          ) : null}
        </dl>
      ) : null}
    </div>
  );
}
