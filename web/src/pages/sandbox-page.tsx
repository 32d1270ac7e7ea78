import { useCallback, useEffect, useState } from 'preact/hooks';
import type { SandboxEmail, SandboxEvent, SandboxEventType, SandboxScenario, SandboxWipe } from '#client/index.ts';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT } from '#shared/domain/webhooks/event-types.ts';
import { api } from '#web/src/api.ts';
import {
  ConfirmDialog,
  CursorPager,
  DataTable,
  ErrorNotice,
  formatInstant,
  PageHeading,
  TextField,
} from '#web/src/components.tsx';
import { useCan } from '#web/src/session.ts';

const EMAIL_PAGE_SIZE = 10;

/**
 * The sandbox's own page, offered while the dashboard shows the sandbox (docs/dashboard.md#the-sandbox-switch):
 * the e-mails it kept instead of sending, its scenario users, a test event of each type (with
 * `webhooks:manage`) and the wipe (with `users:erase`).
 */
export function SandboxPage() {
  return (
    <section aria-labelledby="sandbox-heading">
      <PageHeading>
        <span id="sandbox-heading">Sandbox</span>
      </PageHeading>
      <p>
        Tokens, reports, users and webhooks on the other pages are the sandbox’s while the switch is on. Here: what only
        the sandbox has.
      </p>
      <KeptEmails />
      <Scenarios />
      {useCan('webhooks:manage') ? <TestEvents /> : null}
      {useCan('users:erase') ? <WipeSandbox /> : null}
    </section>
  );
}

/** GET /v1/sandbox/emails: newest first, optionally to one address, 10 a page. */
function KeptEmails() {
  const [to, setTo] = useState('');
  const [filter, setFilter] = useState('');
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const [emails, setEmails] = useState<SandboxEmail[]>();
  const [nextCursor, setNextCursor] = useState<string | null>();
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>();

  const load = useCallback(async () => {
    setLoading(true);
    setError(undefined);
    try {
      const page = await api.listSandboxEmails({
        limit: EMAIL_PAGE_SIZE,
        ...(filter ? { to: filter } : {}),
        ...(cursors.at(-1) ? { cursor: cursors.at(-1) } : {}),
      });
      setEmails(page.results);
      setNextCursor(page.nextCursor);
    } catch (caught) {
      setError(caught);
    } finally {
      setLoading(false);
    }
  }, [filter, cursors]);

  useEffect(() => void load(), [load]);

  return (
    <section aria-labelledby="kept-emails-heading">
      <h2 id="kept-emails-heading">Kept e-mails</h2>
      <p>The sandbox sends no e-mail: each one it would have sent is kept here for 7 days.</p>
      <form
        class="toolbar"
        onSubmit={(event) => {
          event.preventDefault();
          setFilter(to.trim());
          setCursors([undefined]);
        }}
      >
        <TextField id="kept-emails-to" label="To" inputMode="email" value={to} onInput={setTo} />
        <button type="submit" disabled={loading}>
          Show
        </button>
        <button type="button" disabled={loading} onClick={() => void load()}>
          Refresh
        </button>
      </form>
      <ErrorNotice error={error} context="The kept e-mails could not be listed" />
      <DataTable
        label="Kept e-mails"
        columns={['To', 'Subject', 'Token', 'Kept', 'Text']}
        busy={loading}
        empty={emails?.length === 0 && (filter ? `No e-mail to ${filter}.` : 'No e-mail kept yet.')}
      >
        {emails?.map((email) => (
          <tr key={`${email.tokenId}-${email.createdAt}`} data-token-id={email.tokenId}>
            <td data-label="To">{email.to}</td>
            <td data-label="Subject">{email.subject}</td>
            <td data-label="Token">
              <code>{email.tokenId}</code>
            </td>
            <td data-label="Kept">{formatInstant(email.createdAt)}</td>
            <td data-label="Text">
              <details>
                <summary>Read</summary>
                <pre class="email-text">{email.text}</pre>
              </details>
            </td>
          </tr>
        ))}
      </DataTable>
      <CursorPager
        label="Kept e-mail pages"
        cursors={cursors}
        onCursorsChange={setCursors}
        nextCursor={nextCursor}
        loading={loading}
      />
    </section>
  );
}

/** What a scenario user's report job does, in words. */
function reportOutcome(report: SandboxScenario['report']): string {
  if (report.status === 'FAILED') return `ends FAILED with ${report.errorCode}`;
  const pages = `${report.pages} ${report.pages === 1 ? 'page' : 'pages'}`;
  return report.completesAfterSeconds > 0
    ? `completes after ${report.completesAfterSeconds} s, ${pages}`
    : `completes at once, ${pages}`;
}

/** GET /v1/sandbox/scenarios: the users every sandbox holds, each with what its report does. */
function Scenarios() {
  const [scenarios, setScenarios] = useState<SandboxScenario[]>();
  const [error, setError] = useState<unknown>();

  useEffect(() => {
    api.listSandboxScenarios().then(({ results }) => setScenarios(results), setError);
  }, []);

  return (
    <section aria-labelledby="scenarios-heading">
      <h2 id="scenarios-heading">Scenario users</h2>
      <p>Every sandbox holds these users: request a report for one to get its outcome.</p>
      <ErrorNotice error={error} context="The scenarios could not be listed" />
      <DataTable label="Scenario users" columns={['User id', 'What it is', 'Its report']} busy={!scenarios && !error}>
        {scenarios?.map((scenario) => (
          <tr key={scenario.id} data-scenario-id={scenario.id}>
            <td data-label="User id">
              <a href={`#/users/${encodeURIComponent(scenario.id)}`}>
                <code>{scenario.id}</code>
              </a>
            </td>
            <td data-label="What it is">{scenario.description}</td>
            <td data-label="Its report">{reportOutcome(scenario.report)}</td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}

/** What POST /v1/sandbox/events triggers: every event type an endpoint subscribes to, and `webhook.test`. */
const TEST_EVENT_TYPES: readonly SandboxEventType[] = [...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT];

/**
 * POST /v1/sandbox/events, one button per type: the API makes the objects behind the event and its
 * message goes to the sandbox's endpoints (their deliveries are on the Webhooks page). A type whose
 * objects the token may not make (e.g. `onboarding_token.used` needs `onboarding:redeem`) is the API's 403.
 */
function TestEvents() {
  const [busy, setBusy] = useState<SandboxEventType>();
  const [error, setError] = useState<unknown>();
  const [sent, setSent] = useState<SandboxEvent>();

  async function send(type: SandboxEventType) {
    setBusy(type);
    setError(undefined);
    setSent(undefined);
    try {
      setSent(await api.triggerSandboxEvent(type));
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(undefined);
    }
  }

  return (
    <section aria-labelledby="test-events-heading">
      <h2 id="test-events-heading">Send a test event</h2>
      <p>
        Makes the sandbox objects behind the event (a report job, a token); its message goes to the sandbox’s webhook
        endpoints, signed like a live one.
      </p>
      <div class="toolbar">
        {TEST_EVENT_TYPES.map((type) => (
          <button key={type} type="button" disabled={busy !== undefined} onClick={() => void send(type)}>
            Send {type}
          </button>
        ))}
      </div>
      {sent ? (
        <p class="notice success" role="status" data-testid="test-event-sent">
          {sent.type} triggered for <code>{sent.objectId}</code>; its message is on its way to the sandbox’s endpoints.
        </p>
      ) : null}
      <ErrorNotice error={error} context="The event was not triggered" />
    </section>
  );
}

/** DELETE /v1/sandbox (`users:erase`), after a confirmation. */
function WipeSandbox() {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [wipe, setWipe] = useState<SandboxWipe>();

  async function confirm() {
    setBusy(true);
    setError(undefined);
    try {
      setWipe(await api.wipeSandbox());
      setConfirming(false);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="wipe-heading">
      <h2 id="wipe-heading">Wipe the sandbox</h2>
      <p>
        Deletes every sandbox token, report, user, kept e-mail, webhook endpoint and delivery. Live data is untouched.
      </p>
      {wipe ? (
        <p class="notice success" role="status">
          The wipe <code>{wipe.wipeId}</code> is under way (requested {formatInstant(wipe.requestedAt)}): within 60 s
          the sandbox’s data is gone; its scenario users stay.
        </p>
      ) : null}
      <button
        type="button"
        class="danger"
        onClick={() => {
          setWipe(undefined);
          setConfirming(true);
        }}
      >
        Wipe sandbox
      </button>
      {confirming ? (
        <ConfirmDialog
          id="wipe-sandbox"
          title="Wipe the sandbox?"
          confirmText="Wipe"
          busyText="Wiping…"
          busy={busy}
          error={error}
          errorContext="The sandbox was not wiped"
          onConfirm={() => void confirm()}
          onCancel={() => {
            setConfirming(false);
            setError(undefined);
          }}
        >
          <p>
            Every token, report job and PDF, imported user, kept e-mail, webhook endpoint and delivery of this
            organization’s sandbox is deleted within 60 s. The scenario users stay; live data is untouched.
          </p>
          <p>
            <strong>It cannot be undone.</strong>
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
