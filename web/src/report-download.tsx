import { useEffect, useRef, useState } from 'preact/hooks';
import { ReportFailedError, type CompleteReportJob, type ReportJob } from '#client/index.ts';
import { api } from './api.ts';
import { ErrorNotice, formatInstant } from './components.tsx';
import { saveFile } from './save-file.ts';

/** A report job being followed: the status last seen, and the whole job once it has ended. */
export interface FollowedReport {
  jobId: string;
  userId: string;
  status: string;
  note?: string;
  job?: ReportJob;
}

/**
 * Follows one report job at a time until it is COMPLETE or FAILED (a new `follow`, or unmounting,
 * stops the one before). `follow` resolves when the wait ends, however it ends.
 */
export function useReportFollower() {
  const [followed, setFollowed] = useState<FollowedReport>();
  const [error, setError] = useState<unknown>();
  const waiting = useRef<AbortController | undefined>(undefined);

  useEffect(() => () => waiting.current?.abort(), []);

  async function follow(start: FollowedReport): Promise<void> {
    waiting.current?.abort();
    const controller = new AbortController();
    waiting.current = controller;
    setFollowed(start);
    setError(undefined);
    try {
      // The seed's polling guidance, as the client implements it: every 3-5 s for 30 s, then every 10-15 s, 5 minutes at most.
      const done = await api.waitForReport(start.jobId, {
        ...(start.job ? { job: start.job } : {}),
        signal: controller.signal,
        onProgress: (progress) => setFollowed((f) => (f ? { ...f, status: progress.status } : f)),
      });
      setFollowed((f) => (f ? { ...f, status: done.status, job: done } : f));
    } catch (caught) {
      if (controller.signal.aborted) return;
      if (caught instanceof ReportFailedError) {
        const failed = caught.job;
        setFollowed((f) => (f ? { ...f, status: failed.status, job: failed } : f));
      }
      setError(caught);
    }
  }

  return { followed, error, follow };
}

/** A download whose size and SHA-256 matched the job's. */
export interface VerifiedDownload {
  jobId: string;
  filename: string;
  sizeBytes: number;
  sha256: string;
}

/**
 * Downloads a COMPLETE job's PDF: a fresh address, the bytes checked against the job's size and
 * SHA-256 (the client refuses a mismatch), then saved under the API's filename. One at a time.
 */
export function useReportDownload() {
  const [downloading, setDownloading] = useState<string>();
  const [downloaded, setDownloaded] = useState<VerifiedDownload>();
  const [error, setError] = useState<unknown>();

  function clear() {
    setDownloaded(undefined);
    setError(undefined);
  }

  async function download(job: CompleteReportJob): Promise<void> {
    setDownloading(job.jobId);
    clear();
    try {
      const report = await api.fetchReport(job.jobId, { job });
      saveFile(report.bytes, report.filename, 'application/pdf');
      setDownloaded({
        jobId: job.jobId,
        filename: report.filename,
        sizeBytes: report.sizeBytes,
        sha256: report.sha256,
      });
    } catch (caught) {
      setError(caught);
    } finally {
      setDownloading(undefined);
    }
  }

  return { downloading, downloaded, error, download, clear };
}

export type ReportDownload = ReturnType<typeof useReportDownload>;

/** What the last download did: the verified file, or why there is none. */
export function ReportDownloadOutcome({ state }: { state: ReportDownload }) {
  return (
    <>
      {state.downloaded ? (
        <div class="notice success" role="status" data-testid="download-verified">
          <p>
            Saved <strong>{state.downloaded.filename}</strong>: {state.downloaded.sizeBytes} bytes, SHA-256 verified{' '}
            <code class="hash">{state.downloaded.sha256}</code>
          </p>
        </div>
      ) : null}
      <ErrorNotice error={state.error} context="The report was not downloaded" />
    </>
  );
}

/** A report list row's Download button, named by whose report it is and when it was requested. */
export function DownloadReportButton({ job, state }: { job: CompleteReportJob; state: ReportDownload }) {
  return (
    <button
      type="button"
      aria-label={`Download the report of ${job.userId} requested ${formatInstant(job.createdAt)}`}
      disabled={state.downloading !== undefined}
      onClick={() => void state.download(job)}
    >
      Download
    </button>
  );
}
