import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import {
  ConflictError,
  type RateLimitState,
  type CompleteReportJob,
  type ReportJob,
  type ReportJobPage,
} from '#client/index.ts';
import { api } from '#web/src/api.ts';
import {
  CursorPager,
  DataTable,
  ErrorNotice,
  fieldErrors,
  formatBytes,
  formatInstant,
  PageHeading,
  TextField,
} from '#web/src/components.tsx';
import { ReportQuota, reportQuotaOf } from '#web/src/report-quota.tsx';
import { saveFile } from '#web/src/save-file.ts';
import { useSession } from '#web/src/session.ts';
import { activityHref } from './activity-page.tsx';

const PAGE_SIZE = 10;

interface Followed {
  jobId: string;
  userId: string;
  status: string;
  note?: string;
  job?: ReportJob;
}

interface Downloaded {
  jobId: string;
  filename: string;
  sizeBytes: number;
  sha256: string;
}

/** Reports: request one for a user, follow it live, download it verified, and the recent jobs. */
export function ReportsPage() {
  const [userId, setUserId] = useState('');
  const [requestError, setRequestError] = useState<unknown>();
  const [followed, setFollowed] = useState<Followed>();
  const [followError, setFollowError] = useState<unknown>();
  const [downloaded, setDownloaded] = useState<Downloaded>();
  const [downloadError, setDownloadError] = useState<unknown>();
  const [downloading, setDownloading] = useState<string>();
  const [busy, setBusy] = useState(false);
  const waiting = useRef<AbortController | undefined>(undefined);
  const [refreshKey, setRefreshKey] = useState(0);
  const [quota, setQuota] = useState<RateLimitState>();

  useEffect(() => () => waiting.current?.abort(), []);

  async function follow(start: Followed) {
    waiting.current?.abort();
    const controller = new AbortController();
    waiting.current = controller;
    setFollowed(start);
    setFollowError(undefined);
    try {
      // The seed's polling guidance, as the client implements it: every 3-5 s for 30 s, then every 10-15 s, 5 minutes at most.
      const done = await api.waitForReport(start.jobId, {
        ...(start.job ? { job: start.job } : {}),
        signal: controller.signal,
        onProgress: (progress) => setFollowed((f) => (f ? { ...f, status: progress.status } : f)),
      });
      setFollowed((f) => (f ? { ...f, status: done.status, job: done } : f));
    } catch (error) {
      if (!controller.signal.aborted) setFollowError(error);
    } finally {
      setRefreshKey((k) => k + 1);
    }
  }

  async function request(event: Event) {
    event.preventDefault();
    setBusy(true);
    setRequestError(undefined);
    setDownloaded(undefined);
    setDownloadError(undefined);
    try {
      const created = await api.createReportJob({ userId }, { idempotencyKey: crypto.randomUUID() });
      setQuota(reportQuotaOf(created));
      setRefreshKey((k) => k + 1);
      void follow({ jobId: created.job.jobId, userId: created.job.userId, status: created.job.status });
    } catch (error) {
      setQuota((known) => reportQuotaOf(error) ?? known);
      if (error instanceof ConflictError && error.openJobId) {
        void follow({
          jobId: error.openJobId,
          userId,
          status: 'PENDING',
          note: 'A report for this user is already being prepared; following it.',
        });
      } else {
        setRequestError(error);
      }
    } finally {
      setBusy(false);
    }
  }

  async function download(job: CompleteReportJob) {
    setDownloading(job.jobId);
    setDownloadError(undefined);
    setDownloaded(undefined);
    try {
      const report = await api.fetchReport(job.jobId, { job });
      saveFile(report.bytes, report.filename, 'application/pdf');
      setDownloaded({
        jobId: job.jobId,
        filename: report.filename,
        sizeBytes: report.sizeBytes,
        sha256: report.sha256,
      });
    } catch (error) {
      setDownloadError(error);
    } finally {
      setDownloading(undefined);
    }
  }

  const problems = fieldErrors(requestError);
  const followedJob = followed?.job;
  return (
    <section>
      <PageHeading>Reports</PageHeading>

      <form class="card" onSubmit={(event) => void request(event)} noValidate aria-labelledby="request-heading">
        <h2 id="request-heading">Request a report</h2>
        <div class="form-grid">
          <TextField
            id="userId"
            label="User id"
            value={userId}
            onInput={setUserId}
            error={problems.userId}
            hint="The user's id in your organization, e.g. demo-user-1."
          />
        </div>
        {Object.keys(problems).length === 0 ? (
          <ErrorNotice error={requestError} context="The report was not requested" />
        ) : null}
        <button type="submit" class="primary" disabled={busy}>
          Request report
        </button>
        <ReportQuota quota={quota} />
      </form>

      {followed ? (
        <div class="card" aria-labelledby="followed-heading">
          <h2 id="followed-heading">Report for {followed.userId}</h2>
          {followed.note ? <p>{followed.note}</p> : null}
          <p role="status" aria-live="polite">
            Status: <strong data-testid="followed-status">{followed.status}</strong>
          </p>
          <p class="hint">
            Job <code>{followed.jobId}</code>
          </p>
          <ErrorNotice error={followError} />
          {followedJob?.status === 'COMPLETE' ? (
            <button
              type="button"
              class="primary"
              disabled={downloading !== undefined}
              onClick={() => void download(followedJob)}
            >
              Download PDF ({formatBytes(followedJob.sizeBytes)})
            </button>
          ) : null}
        </div>
      ) : null}

      {downloaded ? (
        <div class="notice success" role="status" data-testid="download-verified">
          <p>
            Saved <strong>{downloaded.filename}</strong>: {downloaded.sizeBytes} bytes, SHA-256 verified{' '}
            <code class="hash">{downloaded.sha256}</code>
          </p>
        </div>
      ) : null}
      <ErrorNotice error={downloadError} context="The report was not downloaded" />

      <RecentJobs refreshKey={refreshKey} downloading={downloading} onDownload={(job) => void download(job)} />
    </section>
  );
}

function RecentJobs(props: {
  refreshKey: number;
  downloading: string | undefined;
  onDownload: (job: CompleteReportJob) => void;
}) {
  const [userFilter, setUserFilter] = useState('');
  const [applied, setApplied] = useState('');
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const [page, setPage] = useState<ReportJobPage>();
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(false);
  const canReadAudit = useSession()?.scopes.includes('audit:read') ?? false;
  const cursor = cursors.at(-1);

  const load = useCallback(async () => {
    setLoading(true);
    setError(undefined);
    try {
      setPage(await api.listReportJobs({ limit: PAGE_SIZE, cursor, ...(applied ? { userId: applied } : {}) }));
    } catch (caught) {
      setError(caught);
    } finally {
      setLoading(false);
    }
  }, [cursor, applied]);

  useEffect(() => void load(), [load, props.refreshKey]);

  return (
    <>
      <h2>Recent reports</h2>
      <form
        class="toolbar"
        onSubmit={(event) => {
          event.preventDefault();
          setApplied(userFilter.trim());
          setCursors([undefined]);
        }}
      >
        <div class="field inline">
          <label for="jobs-user">Only user</label>
          <input id="jobs-user" value={userFilter} onInput={(event) => setUserFilter(event.currentTarget.value)} />
        </div>
        <button type="submit">Filter</button>
        <button type="button" onClick={() => void load()} disabled={loading}>
          Refresh
        </button>
      </form>
      <ErrorNotice error={error} context="The reports could not be listed" />
      <DataTable
        label="Recent reports"
        columns={['User', 'Status', 'Requested', 'Size', 'Actions']}
        busy={loading}
        empty={page?.results.length === 0 && 'No reports yet.'}
      >
        {page?.results.map((job) => (
          <tr key={job.jobId} data-job-id={job.jobId}>
            <td data-label="User">{job.userId}</td>
            <td data-label="Status">
              <span class={`badge status-${job.status.toLowerCase()}`}>{job.status}</span>
              {job.status === 'FAILED' ? ` (${job.errorCode})` : ''}
            </td>
            <td data-label="Requested">{formatInstant(job.createdAt)}</td>
            <td data-label="Size">{job.status === 'COMPLETE' ? formatBytes(job.sizeBytes) : ''}</td>
            <td data-label="Actions" class="actions">
              <div class="row-actions">
                {job.status === 'COMPLETE' ? (
                  <button
                    type="button"
                    aria-label={`Download the report of ${job.userId} requested ${formatInstant(job.createdAt)}`}
                    disabled={props.downloading !== undefined}
                    onClick={() => props.onDownload(job)}
                  >
                    Download
                  </button>
                ) : null}
                {canReadAudit ? (
                  <a
                    href={activityHref(job.jobId)}
                    aria-label={`History of the report of ${job.userId} requested ${formatInstant(job.createdAt)}`}
                  >
                    History
                  </a>
                ) : null}
              </div>
            </td>
          </tr>
        ))}
      </DataTable>
      <CursorPager
        label="Report pages"
        cursors={cursors}
        onCursorsChange={setCursors}
        nextCursor={page?.nextCursor}
        loading={loading}
      />
    </>
  );
}
