import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import {
  ReportFailedError,
  USER_FIELDS,
  type OnboardingTokenSummary,
  type RateLimitState,
  type ReportJob,
  type ScreeningEntry,
  type UserStatusRecord,
} from '#client/index.ts';
import { api } from '#web/src/api.ts';
import { EraseUserDialog, DataTable, ErrorNotice, formatBytes, PageHeading } from '#web/src/components.tsx';
import { pageHref } from '#web/src/hash-route.ts';
import {
  DownloadReportButton,
  ReportDownloadOutcome,
  useReportDownload,
  useReportFollower,
  type ReportDownload,
} from '#web/src/report-download.tsx';
import { ReportQuota, reportQuotaOf } from '#web/src/report-quota.tsx';
import { useCan } from '#web/src/session.ts';
import { countOf, displayValue, fieldLabel, formatInstant } from '#web/src/user-fields.ts';

export const userHref = (userId: string): string => `#/users/${encodeURIComponent(userId)}`;

/** Tokens are listed newest first with no e-mail filter: the view reads this many of the newest. */
const TOKEN_SCAN_PAGES = 5;
const TOKEN_PAGE_SIZE = 100;

type Screening = NonNullable<UserStatusRecord['idcheck_pep_sanction_result']>;

/**
 * One user (`#/users/<id>`): every field, the PEP and sanction screening written out, the user's
 * report jobs (an unfinished one followed live, a COMPLETE one downloadable) and onboarding tokens,
 * "Request report" (reports:write) with the quota left, and "Erase" (users:erase) after a confirmation.
 */
export function UserView({ userId }: { userId: string }) {
  const canRequestReport = useCan('reports:write');
  const canErase = useCan('users:erase');
  const canReadReports = useCan('reports:read');
  const canReadTokens = useCan('onboarding:read');
  const [user, setUser] = useState<UserStatusRecord | null>();
  const [loadError, setLoadError] = useState<unknown>();
  const [notice, setNotice] = useState<string>();
  const [actionError, setActionError] = useState<unknown>();
  const [quota, setQuota] = useState<RateLimitState>();
  const [requesting, setRequesting] = useState(false);
  const [confirmingErase, setConfirmingErase] = useState(false);
  const [erasing, setErasing] = useState(false);
  const [eraseError, setEraseError] = useState<unknown>();
  const [erased, setErased] = useState(false);
  const [reportsVersion, setReportsVersion] = useState(0);
  const noticeRef = useRef<HTMLParagraphElement>(null);

  useEffect(() => {
    void (async () => {
      try {
        const page = await api.queryUserStatusPage({
          filters: { id: userId },
          result_keys: [...USER_FIELDS],
          pagination: { limit: 1 },
        });
        setUser(page.results[0] ?? null);
      } catch (error) {
        setLoadError(error);
      }
    })();
  }, [userId]);
  useEffect(() => noticeRef.current?.focus(), [notice]);

  /** Every action starts from a clean slate: no message of an earlier one stays beside its outcome. */
  function startAction() {
    setNotice(undefined);
    setActionError(undefined);
  }

  async function requestReport() {
    startAction();
    setRequesting(true);
    try {
      const created = await api.createReportJob({ userId }, { idempotencyKey: crypto.randomUUID() });
      setQuota(reportQuotaOf(created));
      setNotice(
        `Report requested (job ${created.job.jobId}). It is listed below, followed until it is ready to download.`,
      );
      setReportsVersion((version) => version + 1);
    } catch (error) {
      setQuota(reportQuotaOf(error) ?? quota);
      setActionError(error);
    } finally {
      setRequesting(false);
    }
  }

  async function erase() {
    setErasing(true);
    setEraseError(undefined);
    try {
      await api.eraseUser(userId);
    } catch (error) {
      setEraseError(error);
      return;
    } finally {
      setErasing(false);
    }
    setConfirmingErase(false);
    setErased(true);
    startAction();
    setNotice(`User ${userId} erased.`);
  }

  const title = typeof user?.name === 'string' && user.name !== '' ? user.name : userId;
  return (
    <section aria-labelledby="user-heading">
      <p class="breadcrumb">
        <a href={pageHref('users')}>← All users</a>
      </p>
      <PageHeading>
        <span id="user-heading">{user === null ? `User ${userId}` : title}</span>
      </PageHeading>
      <ErrorNotice error={loadError} context="The user could not be read" />
      {user === null ? (
        <p class="notice warning" role="status">
          No user with the id <code>{userId}</code> in this organization.
        </p>
      ) : null}

      {notice ? (
        <p class="notice success" role="status" tabIndex={-1} ref={noticeRef} data-testid="user-notice">
          {notice}
        </p>
      ) : null}
      <ErrorNotice error={actionError} context="The report was not requested" />

      {user && !erased ? (
        <>
          <div class="toolbar">
            {canRequestReport ? (
              <button type="button" class="primary" disabled={requesting} onClick={() => void requestReport()}>
                {requesting ? 'Requesting…' : 'Request report'}
              </button>
            ) : null}
            {canErase ? (
              <button
                type="button"
                class="danger"
                aria-label={`Erase user ${userId}`}
                onClick={() => {
                  startAction();
                  setEraseError(undefined);
                  setConfirmingErase(true);
                }}
              >
                Erase
              </button>
            ) : null}
          </div>
          <ReportQuota quota={quota} />

          <h2>Details</h2>
          <dl class="fields" data-testid="user-fields">
            {USER_FIELDS.filter((field) => field !== 'idcheck_pep_sanction_result').map((field) => (
              <div key={field} class="field-row">
                <dt>{fieldLabel(field)}</dt>
                <dd data-field={field}>{displayValue(field, user[field]) || <span class="muted">—</span>}</dd>
              </div>
            ))}
          </dl>

          <h2>PEP and sanction screening</h2>
          <ScreeningResult screening={user.idcheck_pep_sanction_result ?? undefined} />

          {canReadReports ? <UserReports key={reportsVersion} userId={userId} /> : null}
          {canReadTokens && typeof user.email === 'string' ? <UserTokens email={user.email} /> : null}
        </>
      ) : null}

      {confirmingErase ? (
        <EraseUserDialog
          userId={userId}
          busy={erasing}
          error={eraseError}
          onConfirm={() => void erase()}
          onCancel={() => {
            setConfirmingErase(false);
            setEraseError(undefined);
          }}
        />
      ) : null}
    </section>
  );
}

function ScreeningResult({ screening }: { screening: Screening | undefined }) {
  if (!screening) return <p class="muted">This user has not been screened.</p>;
  return (
    <div class="screening" data-testid="screening">
      <p>
        <strong>{screening.status}</strong> on {formatInstant(screening.timestamp)}:{' '}
        {countOf(screening.pep_result.length, 'PEP match', 'PEP matches')},{' '}
        {countOf(screening.sanction_result.length, 'sanction match', 'sanction matches')}.
      </p>
      <ScreeningMatches title="PEP matches" entries={screening.pep_result} />
      <ScreeningMatches title="Sanction matches" entries={screening.sanction_result} />
    </div>
  );
}

function ScreeningMatches({ title, entries }: { title: string; entries: readonly ScreeningEntry[] }) {
  if (entries.length === 0) return null;
  return (
    <>
      <h3>{title}</h3>
      <ol class="matches">
        {entries.map((entry, index) => (
          <li key={index}>
            <p>
              <strong>
                {[entry.firstName, entry.middleName, entry.lastName].filter(Boolean).join(' ') || 'Unnamed match'}
              </strong>
              {entry.status ? ` — ${entry.status}` : ''}
            </p>
            <dl class="fields compact">
              {entryFacts(entry).map(([term, value]) => (
                <div key={term} class="field-row">
                  <dt>{term}</dt>
                  <dd>{value}</dd>
                </div>
              ))}
            </dl>
          </li>
        ))}
      </ol>
    </>
  );
}

/** A match's facts in words: lists joined, flags as yes/no, anything nested written out as text. */
function entryFacts(entry: ScreeningEntry): Array<[string, string]> {
  const text = (value: unknown): string =>
    typeof value === 'string'
      ? value
      : typeof value === 'object' && value !== null
        ? describeObject(value)
        : String(value);
  const list = (values: readonly unknown[] | undefined) =>
    values && values.length > 0 ? values.map(text).join('; ') : undefined;
  const facts: Array<[string, string | undefined]> = [
    ['Gender', entry.gender],
    ['Aliases', list(entry.aliases)],
    ['Datasets', list(entry.datasets)],
    [
      'Addresses',
      entry.addresses && entry.addresses.length > 0 ? entry.addresses.map(addressText).join('; ') : undefined,
    ],
    ['Notes', list(entry.notes)],
    ['Evidences', list(entry.evidences)],
    ['Deceased', entry.isDeceased === undefined ? undefined : entry.isDeceased ? 'Yes' : 'No'],
    ['Deleted', entry.isDeleted === undefined ? undefined : entry.isDeleted ? 'Yes' : 'No'],
    ['Reference (QR code)', entry.qrCode],
  ];
  return facts.filter((fact): fact is [string, string] => fact[1] !== undefined && fact[1] !== '');
}

/** A screening address as one line: its parts in postal order, its type after. */
function addressText(address: object): string {
  const parts = address as Record<string, unknown>;
  const line = ['line1', 'line2', 'line3', 'city', 'county', 'state', 'postcode', 'countryIsoCode', 'country']
    .map((key) => parts[key])
    .filter((part): part is string => typeof part === 'string' && part.trim() !== '')
    .join(', ');
  const type = typeof parts.addressType === 'string' ? ` (${parts.addressType})` : '';
  return (line || describeObject(address)) + type;
}

function describeObject(value: object): string {
  return Object.entries(value)
    .filter(([, member]) => member !== null && member !== undefined && member !== '')
    .map(([key, member]) => `${key}: ${typeof member === 'object' ? JSON.stringify(member) : String(member)}`)
    .join(', ');
}

function UserReports({ userId }: { userId: string }) {
  const [jobs, setJobs] = useState<ReportJob[]>();
  const [error, setError] = useState<unknown>();
  const downloads = useReportDownload();
  useEffect(() => {
    api.listReportJobs({ userId, limit: 25 }).then((page) => setJobs(page.results), setError);
  }, [userId]);
  return (
    <>
      <h2>Reports</h2>
      <ErrorNotice error={error} context="The reports could not be listed" />
      {jobs ? (
        <DataTable
          label={`Reports of ${userId}`}
          columns={['Job', 'Status', 'Requested', 'Size', 'Actions']}
          busy={false}
          empty={jobs.length === 0 && 'No reports for this user.'}
        >
          {jobs.map((job) => (
            <UserReportRow key={job.jobId} job={job} downloads={downloads} />
          ))}
        </DataTable>
      ) : null}
      <ReportDownloadOutcome state={downloads} />
    </>
  );
}

/** One report job of the user: followed live while it is not finished, downloadable once COMPLETE. */
function UserReportRow({ job, downloads }: { job: ReportJob; downloads: ReportDownload }) {
  const follower = useReportFollower();
  useEffect(() => {
    if (job.status !== 'COMPLETE' && job.status !== 'FAILED') {
      void follower.follow({ jobId: job.jobId, userId: job.userId, status: job.status, job });
    }
    // The row follows the job it was listed with; a new listing mounts new rows.
  }, []);
  const current = follower.followed?.job ?? job;
  const status = follower.followed?.status ?? job.status;
  return (
    <tr data-job-id={job.jobId}>
      <td data-label="Job">
        <code>{job.jobId}</code>
      </td>
      <td data-label="Status">
        <span class={`badge status-${status.toLowerCase()}`} data-testid="job-status">
          {status}
        </span>
        {current.status === 'FAILED' ? ` (${current.errorCode})` : ''}
        {follower.error instanceof ReportFailedError ? null : (
          <ErrorNotice error={follower.error} context="Its status is no longer followed" />
        )}
      </td>
      <td data-label="Requested">{formatInstant(job.createdAt)}</td>
      <td data-label="Size">{current.status === 'COMPLETE' ? formatBytes(current.sizeBytes) : ''}</td>
      <td data-label="Actions" class="actions">
        <div class="row-actions">
          {current.status === 'COMPLETE' ? <DownloadReportButton job={current} state={downloads} /> : null}
        </div>
      </td>
    </tr>
  );
}

function UserTokens({ email }: { email: string }) {
  const [tokens, setTokens] = useState<OnboardingTokenSummary[]>();
  const [error, setError] = useState<unknown>();
  const load = useCallback(async () => {
    const wanted = email.trim().toLowerCase();
    const found: OnboardingTokenSummary[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < TOKEN_SCAN_PAGES; page++) {
      const result = await api.listOnboardingTokens({ limit: TOKEN_PAGE_SIZE, cursor });
      found.push(...result.results.filter((token) => token.email === wanted));
      if (!result.nextCursor) break;
      cursor = result.nextCursor;
    }
    setTokens(found);
  }, [email]);
  useEffect(() => {
    load().catch(setError);
  }, [load]);
  return (
    <>
      <h2>Onboarding tokens</h2>
      <ErrorNotice error={error} context="The tokens could not be listed" />
      {tokens ? (
        <DataTable
          label={`Onboarding tokens of ${email}`}
          columns={['Status', 'Token ends', 'Issued', 'Expires']}
          busy={false}
          empty={tokens.length === 0 && `No tokens among the ${TOKEN_SCAN_PAGES * TOKEN_PAGE_SIZE} newest.`}
        >
          {tokens.map((token) => (
            <tr key={token.tokenId}>
              <td data-label="Status">
                <span class={`badge status-${token.status.toLowerCase()}`}>{token.status}</span>
              </td>
              <td data-label="Token ends">
                <code>…{token.tokenHint}</code>
              </td>
              <td data-label="Issued">{formatInstant(token.createdAt)}</td>
              <td data-label="Expires">{formatInstant(token.expiresAt)}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
    </>
  );
}
