import { useCallback, useEffect, useState } from 'preact/hooks';
import type {
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookEndpoint,
  WebhookEndpointCreated,
  WebhookEventType,
} from '#client/index.ts';
import { WEBHOOK_EVENT_TYPES } from '#client/index.ts';
import { api } from '#web/src/api.ts';
import {
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

const DELIVERY_PAGE_SIZE = 10;
/** While a shown delivery is pending, the list is read again this often. */
const DELIVERY_POLL_MS = 2000;
/** After a test event is sent the list is read again for this long, until its message shows up (it is queued first). */
const TEST_WATCH_MS = 30_000;

/** What the list shows of an endpoint's health: disabled by the API, or failing when its newest message failed. */
type EndpointState = 'active' | 'failing' | 'disabled';

/**
 * Webhooks: list the organization's endpoints, register one (the secret is shown once, in this
 * component's state only, so it is gone when the page is left), delete one (after a confirmation),
 * send a test event, and read an endpoint's delivery log.
 */
export function WebhooksPage() {
  const [endpoints, setEndpoints] = useState<WebhookEndpoint[]>();
  const [states, setStates] = useState<Record<string, EndpointState>>({});
  const [loading, setLoading] = useState(false);
  const [listError, setListError] = useState<unknown>();
  const [created, setCreated] = useState<WebhookEndpointCreated>();
  const [actionError, setActionError] = useState<unknown>();
  const [notice, setNotice] = useState<string>();
  const [confirming, setConfirming] = useState<string>();
  const [selected, setSelected] = useState<WebhookEndpoint>();
  const [deliveriesVersion, setDeliveriesVersion] = useState(0);
  const [watchUntil, setWatchUntil] = useState(0);

  const load = useCallback(async () => {
    setLoading(true);
    setListError(undefined);
    try {
      const { results } = await api.listWebhookEndpoints();
      setEndpoints(results);
      // The newest message of each endpoint tells whether it is failing (at most 10 endpoints).
      const newest = await Promise.allSettled(
        results.map((endpoint) => api.listWebhookDeliveries(endpoint.id, { limit: 1 })),
      );
      const next: Record<string, EndpointState> = {};
      results.forEach((endpoint, index) => {
        const outcome = newest[index];
        const last = outcome?.status === 'fulfilled' ? outcome.value.results[0] : undefined;
        next[endpoint.id] = endpoint.disabled ? 'disabled' : last?.status === 'failed' ? 'failing' : 'active';
      });
      setStates(next);
    } catch (error) {
      setListError(error);
    } finally {
      setLoading(false);
    }
  }, []);

  useEffect(() => void load(), [load]);

  function startAction() {
    setActionError(undefined);
    setNotice(undefined);
  }

  async function remove(endpoint: WebhookEndpoint) {
    startAction();
    setCreated(undefined);
    try {
      await api.deleteWebhookEndpoint(endpoint.id);
      setConfirming(undefined);
      if (selected?.id === endpoint.id) setSelected(undefined);
      await load();
      setNotice(`The endpoint ${endpoint.url} was deleted.`);
    } catch (error) {
      setActionError(error);
    }
  }

  async function sendTest(endpoint: WebhookEndpoint) {
    startAction();
    try {
      const { eventId } = await api.testWebhookEndpoint(endpoint.id);
      setNotice(`A webhook.test event (${eventId}) was queued for ${endpoint.url}; its delivery is listed below.`);
      setSelected(endpoint);
      setWatchUntil(Date.now() + TEST_WATCH_MS);
      setDeliveriesVersion((version) => version + 1);
    } catch (error) {
      setActionError(error);
    }
  }

  return (
    <section aria-labelledby="webhooks-heading">
      <PageHeading>
        <span id="webhooks-heading">Webhooks</span>
      </PageHeading>

      <CreateEndpointForm
        onStart={startAction}
        onCreated={(endpoint) => {
          startAction();
          setCreated(endpoint);
          void load();
        }}
      />

      {created ? <SecretOnce endpoint={created} onDismiss={() => setCreated(undefined)} /> : null}
      {notice ? (
        <p class="notice success" role="status">
          {notice}
        </p>
      ) : null}
      <ErrorNotice error={actionError} />

      <h2>Endpoints</h2>
      <div class="toolbar">
        <button type="button" onClick={() => void load()} disabled={loading}>
          Refresh
        </button>
      </div>
      <ErrorNotice error={listError} context="The endpoints could not be listed" />

      <DataTable
        label="Webhook endpoints"
        columns={['URL', 'Events', 'State', 'Created', 'Actions']}
        busy={loading}
        empty={endpoints?.length === 0 && 'No endpoints yet.'}
      >
        {endpoints?.map((endpoint) => {
          const state = states[endpoint.id] ?? (endpoint.disabled ? 'disabled' : 'active');
          return (
            <tr key={endpoint.id} data-endpoint-id={endpoint.id}>
              <td data-label="URL">
                <code>{endpoint.url}</code>
              </td>
              <td data-label="Events">{endpoint.events.join(', ')}</td>
              <td data-label="State">
                <span class={`badge status-${state === 'active' ? 'complete' : 'failed'}`}>{state}</span>
              </td>
              <td data-label="Created">{formatInstant(endpoint.createdAt)}</td>
              <td data-label="Actions" class="actions">
                <div class="row-actions">
                  {confirming === endpoint.id ? (
                    <>
                      <span role="alert">Delete this endpoint? Its messages stop at once.</span>
                      <button
                        type="button"
                        class="danger"
                        aria-label={`Confirm deleting ${endpoint.url}`}
                        onClick={() => void remove(endpoint)}
                      >
                        Confirm delete
                      </button>
                      <button type="button" onClick={() => setConfirming(undefined)}>
                        Cancel
                      </button>
                    </>
                  ) : (
                    <>
                      <button
                        type="button"
                        aria-label={`Send a test event to ${endpoint.url}`}
                        onClick={() => void sendTest(endpoint)}
                      >
                        Send test
                      </button>
                      <button
                        type="button"
                        aria-label={`Show the deliveries of ${endpoint.url}`}
                        aria-pressed={selected?.id === endpoint.id ? 'true' : 'false'}
                        onClick={() => {
                          setSelected(endpoint);
                          setWatchUntil(0);
                          setDeliveriesVersion((version) => version + 1);
                        }}
                      >
                        Deliveries
                      </button>
                      <button
                        type="button"
                        aria-label={`Delete ${endpoint.url}`}
                        onClick={() => {
                          startAction();
                          setConfirming(endpoint.id);
                        }}
                      >
                        Delete
                      </button>
                    </>
                  )}
                </div>
              </td>
            </tr>
          );
        })}
      </DataTable>

      {selected ? (
        <Deliveries key={`${selected.id}-${deliveriesVersion}`} endpoint={selected} watchUntil={watchUntil} />
      ) : null}
    </section>
  );
}

/** The secret of a new endpoint, shown once: it lives in the page's state only and is never read again. */
function SecretOnce({ endpoint, onDismiss }: { endpoint: WebhookEndpointCreated; onDismiss: () => void }) {
  const [copied, setCopied] = useState<'copied' | 'failed'>();
  async function copy() {
    try {
      await navigator.clipboard.writeText(endpoint.secret);
      setCopied('copied');
    } catch {
      setCopied('failed');
    }
  }
  return (
    <div class="notice success" role="status">
      <p>
        Endpoint registered for <code>{endpoint.url}</code>. Its signing secret:
      </p>
      <p class="secret-row">
        <code class="secret" data-testid="webhook-secret">
          {endpoint.secret}
        </code>
        <button type="button" onClick={() => void copy()}>
          Copy secret
        </button>
        {copied === 'copied' ? <span>Copied.</span> : null}
        {copied === 'failed' ? <span>The browser refused the clipboard: select the secret and copy it.</span> : null}
      </p>
      <p>
        <strong>You will not see this secret again.</strong> Keep it where your receiver can read it: it verifies every
        message (Standard Webhooks). Leaving this page forgets it.
      </p>
      <button type="button" onClick={onDismiss}>
        I have kept the secret
      </button>
    </div>
  );
}

function CreateEndpointForm({
  onStart,
  onCreated,
}: {
  onStart: () => void;
  onCreated: (endpoint: WebhookEndpointCreated) => void;
}) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEventType[]>([...WEBHOOK_EVENT_TYPES]);
  const { busy, error, run } = useSubmission();
  const problems = fieldErrors(error);

  async function submit(event: Event) {
    event.preventDefault();
    onStart();
    await run(async () => {
      // Validation, the SSRF guard included, is the API's: its 400 is shown beside each field.
      const endpoint = await api.createWebhookEndpoint({ url: url.trim(), events });
      onCreated(endpoint);
      setUrl('');
      setEvents([...WEBHOOK_EVENT_TYPES]);
    });
  }

  return (
    <form class="card" onSubmit={(event) => void submit(event)} noValidate aria-labelledby="webhook-create-heading">
      <h2 id="webhook-create-heading">Register an endpoint</h2>
      <TextField
        id="url"
        label="Endpoint URL"
        autoComplete="off"
        value={url}
        onInput={setUrl}
        error={problems.url}
        hint="https, on a public host. Messages are signed with Standard Webhooks."
      />
      <fieldset class="columns" aria-describedby={problems.events ? 'events-error' : undefined}>
        <legend>Events</legend>
        {WEBHOOK_EVENT_TYPES.map((type) => (
          <label key={type} class="check">
            <input
              type="checkbox"
              name="events"
              value={type}
              checked={events.includes(type)}
              onChange={(event) =>
                setEvents(
                  event.currentTarget.checked
                    ? WEBHOOK_EVENT_TYPES.filter((t) => t === type || events.includes(t))
                    : events.filter((t) => t !== type),
                )
              }
            />{' '}
            {type}
          </label>
        ))}
      </fieldset>
      {problems.events ? (
        <small id="events-error" class="field-error">
          {problems.events}
        </small>
      ) : null}
      <FormProblems error={error} problems={problems} context="The endpoint was not registered" />
      <button type="submit" class="primary" disabled={busy}>
        {busy ? 'Registering…' : 'Register endpoint'}
      </button>
    </form>
  );
}

/**
 * One endpoint's delivery log, newest first, read again while a message is pending or until
 * `watchUntil` (a test event just sent: its message is logged once the queue hands it over).
 */
function Deliveries({ endpoint, watchUntil }: { endpoint: WebhookEndpoint; watchUntil: number }) {
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const [page, setPage] = useState<WebhookDeliveryPage>();
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<unknown>();
  const cursor = cursors.at(-1);

  const load = useCallback(async () => {
    setLoading(true);
    setError(undefined);
    try {
      setPage(await api.listWebhookDeliveries(endpoint.id, { limit: DELIVERY_PAGE_SIZE, cursor }));
    } catch (caught) {
      setError(caught);
    } finally {
      setLoading(false);
    }
  }, [endpoint.id, cursor]);

  useEffect(() => void load(), [load]);

  const pending = page?.results.some((delivery) => delivery.status === 'pending') ?? false;
  useEffect(() => {
    if (!page || (!pending && Date.now() >= watchUntil)) return undefined;
    const timer = setTimeout(() => void load(), DELIVERY_POLL_MS);
    return () => clearTimeout(timer);
  }, [pending, page, load, watchUntil]);

  return (
    <section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">
        Deliveries to <code>{endpoint.url}</code>
      </h2>
      <div class="toolbar">
        <button type="button" onClick={() => void load()} disabled={loading}>
          Refresh deliveries
        </button>
        {pending ? <p role="status">Pending messages are read again every {DELIVERY_POLL_MS / 1000} s.</p> : null}
      </div>
      <ErrorNotice error={error} context="The deliveries could not be listed" />
      <DataTable
        label="Webhook deliveries"
        columns={['Event', 'Status', 'Attempts', 'Last response', 'Created', 'Last attempt', 'Next attempt']}
        busy={loading}
        empty={page?.results.length === 0 && 'No messages yet.'}
      >
        {page?.results.map((delivery: WebhookDelivery) => (
          <tr key={delivery.messageId} data-message-id={delivery.messageId}>
            <td data-label="Event">
              {delivery.type}
              <br />
              <code class="hash">{delivery.messageId}</code>
            </td>
            <td data-label="Status">
              <span
                class={`badge status-${delivery.status === 'delivered' ? 'complete' : delivery.status}`}
                data-testid="delivery-status"
              >
                {delivery.status}
              </span>
            </td>
            <td data-label="Attempts">{delivery.attempts}</td>
            <td data-label="Last response">{delivery.lastResponseStatus ?? '—'}</td>
            <td data-label="Created">{formatInstant(delivery.createdAt)}</td>
            <td data-label="Last attempt">{formatInstant(delivery.lastAttemptAt) || '—'}</td>
            <td data-label="Next attempt">{formatInstant(delivery.nextAttemptAt) || '—'}</td>
          </tr>
        ))}
      </DataTable>
      <CursorPager
        label="Delivery pages"
        cursors={cursors}
        onCursorsChange={setCursors}
        nextCursor={page?.nextCursor}
        loading={loading}
        previousText="Previous deliveries"
        nextText="Older deliveries"
      />
    </section>
  );
}
