import { useCallback, useEffect, useState } from 'preact/hooks';
import { ConflictError, type RateLimitState, type ReportJobPage } from '#client/index.ts';
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
import {
  DownloadReportButton,
  ReportDownloadOutcome,
  useReportDownload,
  useReportFollower,
  type ReportDownload,
} from '#web/src/report-download.tsx';
import { ReportQuota, reportQuotaOf } from '#web/src/report-quota.tsx';
import { useCan } from '#web/src/session.ts';
import { activityHref } from './activity-page.tsx';

const PAGE_SIZE = 10;

/** Reports: request one for a user, follow it live, download it verified, and the recent jobs. */
export function ReportsPage() {
  const [userId, setUserId] = useState('');
  const [requestError, setRequestError] = useState<unknown>();
  const follower = useReportFollower();
  const downloads = useReportDownload();
  const [busy, setBusy] = useState(false);
  const [refreshKey, setRefreshKey] = useState(0);
  const [quota, setQuota] = useState<RateLimitState>();

  const refresh = () => setRefreshKey((k) => k + 1);

  async function request(event: Event) {
    event.preventDefault();
    setBusy(true);
    setRequestError(undefined);
    downloads.clear();
    try {
      const created = await api.createReportJob({ userId }, { idempotencyKey: crypto.randomUUID() });
      setQuota(reportQuotaOf(created));
      refresh();
      void follower
        .follow({ jobId: created.job.jobId, userId: created.job.userId, status: created.job.status })
        .then(refresh);
    } catch (error) {
      setQuota((known) => reportQuotaOf(error) ?? known);
      if (error instanceof ConflictError && error.openJobId) {
        void follower
          .follow({
            jobId: error.openJobId,
            userId,
            status: 'PENDING',
            note: 'A report for this user is already being prepared; following it.',
          })
          .then(refresh);
      } else {
        setRequestError(error);
      }
    } finally {
      setBusy(false);
    }
  }

  const problems = fieldErrors(requestError);
  const followed = follower.followed;
  const followedJob = followed?.job;
  const canRequest = useCan('reports:write');
  return (
    <section>
      <PageHeading>Reports</PageHeading>

      {canRequest ? (
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
      ) : null}

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
          <ErrorNotice error={follower.error} />
          {followedJob?.status === 'COMPLETE' ? (
            <button
              type="button"
              class="primary"
              disabled={downloads.downloading !== undefined}
              onClick={() => void downloads.download(followedJob)}
            >
              Download PDF ({formatBytes(followedJob.sizeBytes)})
            </button>
          ) : null}
        </div>
      ) : null}

      <ReportDownloadOutcome state={downloads} />

      <RecentJobs refreshKey={refreshKey} downloads={downloads} />
    </section>
  );
}

function RecentJobs(props: { refreshKey: number; downloads: ReportDownload }) {
  const [userFilter, setUserFilter] = useState('');
  const [applied, setApplied] = useState('');
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const [page, setPage] = useState<ReportJobPage>();
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(false);
  const canReadAudit = useCan('audit:read');
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
                {job.status === 'COMPLETE' ? <DownloadReportButton job={job} state={props.downloads} /> : null}
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
