import { useCallback, useEffect, useState } from 'preact/hooks';
import type {
  OnboardingToken,
  OnboardingTokenPage,
  OnboardingTokenStatus,
  OnboardingTokenSummary,
} from '#client/index.ts';
import { api } from '#web/src/api.ts';
import {
  ConfirmDialog,
  CursorPager,
  DataTable,
  ErrorNotice,
  fieldErrors,
  formatInstant,
  FormProblems,
  PageHeading,
  TextField,
  useSubmission,
} from '#web/src/components.tsx';
import { useCan } from '#web/src/session.ts';
import { activityHref } from './activity-page.tsx';

const STATUSES: readonly OnboardingTokenStatus[] = ['Issued', 'Used', 'Expired', 'Revoked'];
const PAGE_SIZE = 10;

/** A revoke or resend waiting for its confirmation. */
interface PendingAction {
  kind: 'revoke' | 'resend';
  token: OnboardingTokenSummary;
}

/**
 * Onboarding tokens: list (status filter, paging), issue, revoke, resend. Revoke and resend (which
 * e-mails a new token) ask first; every action starts by clearing the last one's messages.
 */
export function TokensPage() {
  const [status, setStatus] = useState<OnboardingTokenStatus | ''>('');
  // Cursors of the pages before the current one, so Previous works with the API's forward-only cursor.
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const [page, setPage] = useState<OnboardingTokenPage>();
  const [loading, setLoading] = useState(false);
  const [listError, setListError] = useState<unknown>();
  const [issued, setIssued] = useState<{ token: OnboardingToken; email: string; resent: boolean }>();
  const [actionError, setActionError] = useState<unknown>();
  const [notice, setNotice] = useState<string>();
  const [pending, setPending] = useState<PendingAction>();
  const [pendingBusy, setPendingBusy] = useState(false);
  const [pendingError, setPendingError] = useState<unknown>();
  /** Counts the row actions started, so the issue form drops its last error when one starts. */
  const [rowActions, setRowActions] = useState(0);
  const canReadAudit = useCan('audit:read');
  const canWrite = useCan('onboarding:write');
  const cursor = cursors.at(-1);

  const load = useCallback(async () => {
    setLoading(true);
    setListError(undefined);
    try {
      setPage(await api.listOnboardingTokens({ limit: PAGE_SIZE, cursor, ...(status ? { status } : {}) }));
    } catch (error) {
      setListError(error);
    } finally {
      setLoading(false);
    }
  }, [cursor, status]);

  useEffect(() => void load(), [load]);

  const firstPage = () => setCursors([undefined]);

  /** A new action: the last one's token box, message and error go. */
  function startAction() {
    setIssued(undefined);
    setNotice(undefined);
    setActionError(undefined);
  }

  function ask(kind: PendingAction['kind'], token: OnboardingTokenSummary) {
    startAction();
    setRowActions((count) => count + 1);
    setPendingError(undefined);
    setPending({ kind, token });
  }

  async function confirmPending() {
    if (!pending) return;
    const { kind, token } = pending;
    setPendingBusy(true);
    setPendingError(undefined);
    try {
      if (kind === 'revoke') {
        await api.revokeOnboardingToken(token.tokenId);
        setNotice(`The token of ${token.email} was revoked.`);
      } else {
        const created = await api.resendOnboardingToken(token.tokenId, { idempotencyKey: crypto.randomUUID() });
        setIssued({ token: created, email: token.email, resent: true });
      }
    } catch (error) {
      // The confirmation stays open with the API's message.
      setPendingError(error);
      return;
    } finally {
      setPendingBusy(false);
    }
    setPending(undefined);
    await load();
  }

  return (
    <section aria-labelledby="tokens-heading">
      <PageHeading>
        <span id="tokens-heading">Onboarding tokens</span>
      </PageHeading>

      {canWrite ? (
        <IssueTokenForm
          rowActions={rowActions}
          onStart={startAction}
          onIssued={(token, email) => {
            setIssued({ token, email, resent: false });
            firstPage();
            void load();
          }}
        />
      ) : null}

      {notice ? (
        <p class="notice success" role="status" data-testid="tokens-notice">
          {notice}
        </p>
      ) : null}
      {issued ? (
        <div class="notice success" role="status" data-testid="issued-notice">
          <p>
            {issued.resent ? 'A new token was issued and e-mailed' : 'Token issued and e-mailed'} to{' '}
            <strong>{issued.email}</strong>. It is shown only now:
          </p>
          <p>
            <code class="secret" data-testid="issued-token">
              {issued.token.onboarding_token}
            </code>
          </p>
          <p>Expires {formatInstant(issued.token.expires_at)}.</p>
        </div>
      ) : null}
      <ErrorNotice error={actionError} />

      <h2>Issued tokens</h2>
      <div class="toolbar">
        <div class="field inline">
          <label for="token-status">Status</label>
          <select
            id="token-status"
            value={status}
            onChange={(event) => {
              setStatus(event.currentTarget.value as OnboardingTokenStatus | '');
              firstPage();
            }}
          >
            <option value="">Any status</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <button type="button" onClick={() => void load()} disabled={loading}>
          Refresh
        </button>
      </div>
      <ErrorNotice error={listError} context="The tokens could not be listed" />

      <DataTable
        label="Onboarding tokens"
        columns={[
          'E-mail',
          'Name',
          'Status',
          'Token ends',
          'Issued',
          'Expires',
          ...(canWrite || canReadAudit ? ['Actions'] : []),
        ]}
        busy={loading}
        empty={page?.results.length === 0 && `No tokens${status ? ` in status ${status}` : ''}.`}
      >
        {page?.results.map((token) => (
          <tr key={token.tokenId} data-token-id={token.tokenId}>
            <td data-label="E-mail">{token.email}</td>
            <td data-label="Name">
              {token.first_name} {token.last_name}
            </td>
            <td data-label="Status">
              <span class={`badge status-${token.status.toLowerCase()}`}>{token.status}</span>
            </td>
            <td data-label="Token ends">
              <code>…{token.tokenHint}</code>
            </td>
            <td data-label="Issued">{formatInstant(token.createdAt)}</td>
            <td data-label="Expires">{formatInstant(token.expiresAt)}</td>
            {canWrite || canReadAudit ? (
              <td data-label="Actions" class="actions">
                <div class="row-actions">
                  {canWrite && token.status === 'Issued' ? (
                    <button
                      type="button"
                      aria-label={`Revoke the token of ${token.email}`}
                      onClick={() => ask('revoke', token)}
                    >
                      Revoke
                    </button>
                  ) : null}
                  {canWrite && (token.status === 'Issued' || token.status === 'Expired') ? (
                    <button
                      type="button"
                      aria-label={`Resend a token to ${token.email}`}
                      onClick={() => ask('resend', token)}
                    >
                      Resend
                    </button>
                  ) : null}
                  {canReadAudit ? (
                    <a href={activityHref(token.tokenId)} aria-label={`History of the token of ${token.email}`}>
                      History
                    </a>
                  ) : null}
                </div>
              </td>
            ) : null}
          </tr>
        ))}
      </DataTable>
      <CursorPager
        label="Token pages"
        cursors={cursors}
        onCursorsChange={setCursors}
        nextCursor={page?.nextCursor}
        loading={loading}
      />
      {pending ? (
        <ConfirmDialog
          id={`${pending.kind}-token`}
          title={
            pending.kind === 'revoke'
              ? `Revoke the token of ${pending.token.email}?`
              : `Resend a token to ${pending.token.email}?`
          }
          confirmText={pending.kind === 'revoke' ? 'Revoke' : 'Resend'}
          busyText={pending.kind === 'revoke' ? 'Revoking…' : 'Sending…'}
          busy={pendingBusy}
          error={pendingError}
          errorContext={pending.kind === 'revoke' ? 'The token was not revoked' : 'No new token was sent'}
          onConfirm={() => void confirmPending()}
          onCancel={() => {
            setPending(undefined);
            setPendingError(undefined);
          }}
        >
          {pending.kind === 'revoke' ? (
            <p>
              The token ending in <code>…{pending.token.tokenHint}</code> stops working at once; {pending.token.email}{' '}
              can be sent a new one afterwards.
            </p>
          ) : (
            <p>
              A new token is e-mailed to {pending.token.email}
              {pending.token.status === 'Issued' ? (
                <>
                  , and the one ending in <code>…{pending.token.tokenHint}</code> stops working
                </>
              ) : null}
              .
            </p>
          )}
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

function IssueTokenForm({
  rowActions,
  onStart,
  onIssued,
}: {
  rowActions: number;
  onStart: () => void;
  onIssued: (token: OnboardingToken, email: string) => void;
}) {
  const [email, setEmail] = useState('');
  const [firstName, setFirstName] = useState('');
  const [lastName, setLastName] = useState('');
  const { busy, error, run, clear } = useSubmission();
  const problems = fieldErrors(error);
  // A revoke or resend started in the list: this form's last error is no longer the news.
  useEffect(() => clear(), [rowActions, clear]);

  async function submit(event: Event) {
    event.preventDefault();
    onStart();
    await run(async () => {
      // Validation is the API's: its 400 lists every problem, shown beside each field.
      const token = await api.createOnboardingToken(
        { email, first_name: firstName, last_name: lastName },
        { idempotencyKey: crypto.randomUUID() },
      );
      onIssued(token, email.trim().toLowerCase());
      setEmail('');
      setFirstName('');
      setLastName('');
    });
  }

  return (
    <form class="card" onSubmit={(event) => void submit(event)} noValidate aria-labelledby="issue-heading">
      <h2 id="issue-heading">Issue a token</h2>
      <div class="form-grid">
        <TextField
          id="email"
          label="E-mail"
          inputMode="email"
          autoComplete="off"
          value={email}
          onInput={setEmail}
          error={problems.email}
        />
        <TextField
          id="firstName"
          label="First name"
          autoComplete="off"
          value={firstName}
          onInput={setFirstName}
          error={problems.firstName}
        />
        <TextField
          id="lastName"
          label="Last name"
          autoComplete="off"
          value={lastName}
          onInput={setLastName}
          error={problems.lastName}
        />
      </div>
      <FormProblems error={error} problems={problems} context="The token was not issued" />
      <button type="submit" class="primary" disabled={busy}>
        {busy ? 'Issuing…' : 'Issue and e-mail token'}
      </button>
    </form>
  );
}
