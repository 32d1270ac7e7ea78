import { useCallback, useEffect, useState } from 'preact/hooks';
import type { AuditAction, AuditEvent, AuditEventPage } from '#client/index.ts';
import { api } from '#web/src/api.ts';
import { CursorPager, DataTable, ErrorNotice, formatInstant, PageHeading } from '#web/src/components.tsx';
import { hashQuery, pageHref } from '#web/src/hash-route.ts';

const PAGE_SIZE = 25;

/** Each action of the audit trail (contract §16) in words, in the contract's order. */
const ACTION_LABELS: Record<AuditAction, string> = {
  'onboarding_token.created': 'Token created',
  'onboarding_token.redeemed': 'Token redeemed',
  'onboarding_token.revoked': 'Token revoked',
  'onboarding_token.resent': 'Token resent',
  'onboarding_token.expired': 'Token expired (sandbox)',
  'report.requested': 'Report requested',
  'report.download_url_issued': 'Download address issued',
  'webhook.created': 'Webhook created',
  'webhook.deleted': 'Webhook deleted',
  'webhook.tested': 'Webhook tested',
  'user.erasure_started': 'User erasure started',
  'user.erased': 'User erased',
  'sandbox.wipe_requested': 'Sandbox wipe requested',
};
const ACTIONS = Object.keys(ACTION_LABELS) as AuditAction[];

const TARGET_LABELS: Record<AuditEvent['target']['type'], string> = {
  onboarding_token: 'Onboarding token',
  report: 'Report',
  webhook: 'Webhook',
  user: 'User',
  sandbox: 'Sandbox',
};

const isAuditAction = (value: string | null): value is AuditAction =>
  value !== null && Object.hasOwn(ACTION_LABELS, value);

// A label for an action or target type this dashboard does not know yet: the API's own word.
const actionLabel = (action: string): string => ACTION_LABELS[action as AuditAction] ?? action;
const targetLabel = (type: string): string => TARGET_LABELS[type as AuditEvent['target']['type']] ?? type;

interface Filters {
  action: AuditAction | '';
  targetId: string;
}

/** The filters the address asks for: `#/activity?targetId=…&action=…` (an unknown action is ignored). */
function filtersFromAddress(): Filters {
  const query = hashQuery();
  const action = query.get('action');
  return { action: isAuditAction(action) ? action : '', targetId: query.get('targetId')?.trim() ?? '' };
}

/** The link to one resource's history on the Activity page. */
export const activityHref = (targetId: string): string => pageHref('activity', { targetId });

/** Activity: the organization's audit trail, newest first, by action and target, with paging. */
export function ActivityPage() {
  const [initial] = useState(filtersFromAddress);
  const [action, setAction] = useState<AuditAction | ''>(initial.action);
  const [targetId, setTargetId] = useState(initial.targetId);
  const [applied, setApplied] = useState<Filters>(initial);
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const [page, setPage] = useState<AuditEventPage>();
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>();
  const cursor = cursors.at(-1);
  const filtered = applied.action !== '' || applied.targetId !== '';

  const load = useCallback(async () => {
    setLoading(true);
    setError(undefined);
    try {
      setPage(
        await api.listAuditEvents({
          limit: PAGE_SIZE,
          cursor,
          ...(applied.action ? { action: applied.action } : {}),
          ...(applied.targetId ? { targetId: applied.targetId } : {}),
        }),
      );
    } catch (caught) {
      setError(caught);
    } finally {
      setLoading(false);
    }
  }, [cursor, applied]);

  useEffect(() => void load(), [load]);

  function apply(next: Filters) {
    setApplied({ action: next.action, targetId: next.targetId.trim() });
    setCursors([undefined]);
  }

  return (
    <section aria-labelledby="activity-heading">
      <PageHeading>
        <span id="activity-heading">Activity</span>
      </PageHeading>
      <p class="hint">
        Who changed what in this organization, newest first: tokens, reports and their download addresses, webhooks and
        erased users.
      </p>

      <form
        class="toolbar"
        aria-label="Activity filters"
        onSubmit={(event) => {
          event.preventDefault();
          apply({ action, targetId });
        }}
      >
        <div class="field inline">
          <label for="activity-action">Action</label>
          <select
            id="activity-action"
            value={action}
            onChange={(event) => setAction(event.currentTarget.value as AuditAction | '')}
          >
            <option value="">All actions</option>
            {ACTIONS.map((a) => (
              <option key={a} value={a}>
                {ACTION_LABELS[a]}
              </option>
            ))}
          </select>
        </div>
        <div class="field inline">
          <label for="activity-target">Target id</label>
          <input
            id="activity-target"
            size={36}
            autoComplete="off"
            spellcheck={false}
            value={targetId}
            onInput={(event) => setTargetId(event.currentTarget.value)}
          />
        </div>
        <button type="submit">Filter</button>
        {filtered ? (
          <button
            type="button"
            onClick={() => {
              setAction('');
              setTargetId('');
              apply({ action: '', targetId: '' });
            }}
          >
            Clear filters
          </button>
        ) : null}
        <button type="button" onClick={() => void load()} disabled={loading}>
          Refresh
        </button>
      </form>
      <ErrorNotice error={error} context="The activity could not be listed" />

      <DataTable
        label="Activity"
        columns={['When', 'Action', 'Target', 'Actor', 'Request id']}
        busy={loading}
        empty={
          page?.results.length === 0 && (filtered ? 'No activity matches these filters.' : 'No activity recorded yet.')
        }
      >
        {page?.results.map((event) => (
          <tr
            key={event.eventId}
            data-event-id={event.eventId}
            data-action={event.action}
            data-target-id={event.target.id}
          >
            <td data-label="When">
              <time dateTime={event.occurredAt}>{formatInstant(event.occurredAt)}</time>
            </td>
            <td data-label="Action">
              {actionLabel(event.action)}
              {event.action === 'user.erasure_started' ? <ErasureProgress started={event} /> : null}
            </td>
            <td data-label="Target">
              <div>
                {targetLabel(event.target.type)}
                <br />
                <code>{event.target.id}</code>
              </div>
            </td>
            <td data-label="Actor">
              <div>
                {event.actor.sub ?? (event.actor.clientId ? 'A machine client' : 'Unknown')}
                {event.actor.clientId ? (
                  <>
                    <br />
                    <small class="hint">
                      client <code>{event.actor.clientId}</code>
                    </small>
                  </>
                ) : null}
              </div>
            </td>
            <td data-label="Request id">
              <small class="request-id">
                <code>{event.requestId}</code>
              </small>
            </td>
          </tr>
        ))}
      </DataTable>
      <CursorPager
        label="Activity pages"
        cursors={cursors}
        onCursorsChange={setCursors}
        nextCursor={page?.nextCursor}
        loading={loading}
      />
    </section>
  );
}

/**
 * Whether the erasure an `user.erasure_started` event began has finished: a `user.erased` of the
 * same user at or after it. One that has not was cut off half way (repeating the erasure finishes it).
 */
function ErasureProgress({ started }: { started: AuditEvent }) {
  const [finished, setFinished] = useState<boolean>();
  useEffect(() => {
    const controller = new AbortController();
    api
      .listAuditEvents(
        { action: 'user.erased', targetId: started.target.id, from: started.occurredAt, limit: 1 },
        { signal: controller.signal },
      )
      .then(
        (page) => setFinished(page.results.length > 0),
        () => setFinished(undefined),
      );
    return () => controller.abort();
  }, [started.eventId]);
  if (finished === undefined) return null;
  return finished ? (
    <>
      {' '}
      <span class="badge status-complete" data-testid="erasure-progress">
        finished
      </span>
    </>
  ) : (
    <>
      {' '}
      <span class="badge status-failed" data-testid="erasure-progress">
        not finished
      </span>
      <br />
      <small class="hint">Stopped half way: erase the user again to finish.</small>
    </>
  );
}
