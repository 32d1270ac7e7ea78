import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import {
  ApiConnectionError,
  ApiError,
  ReportFailedError,
  ReportIntegrityError,
  ReportTimedOutError,
  ValidationError,
} from '#client/index.ts';

/** An error as the contract words it, with the request id to quote when asking for help. */
export function ErrorNotice({ error, context }: { error: unknown; context?: string }) {
  if (error === undefined || error === null) return null;
  const { message, requestId, details } = describeError(error);
  return (
    <div class="notice error" role="alert">
      <p>
        {context ? <strong>{context}: </strong> : null}
        {message}
      </p>
      {details.length > 0 ? (
        <ul>
          {details.map((detail) => (
            <li key={detail}>{detail}</li>
          ))}
        </ul>
      ) : null}
      {requestId ? (
        <p class="request-id">
          Request id: <code>{requestId}</code>
        </p>
      ) : null}
    </div>
  );
}

export function describeError(error: unknown): { message: string; requestId?: string; details: string[] } {
  if (error instanceof ValidationError) {
    return {
      message: 'The request was not accepted:',
      requestId: error.requestId,
      details: error.errors.map((problem) => `${problem.field}: ${problem.hint}`),
    };
  }
  if (error instanceof ApiError) {
    return {
      message: error.standardBody?.message ?? `HTTP ${error.status}`,
      requestId: error.requestId,
      details: error.retryAfterSeconds === undefined ? [] : [`Try again in ${error.retryAfterSeconds} s.`],
    };
  }
  if (error instanceof ApiConnectionError) return { message: 'The service could not be reached.', details: [] };
  if (error instanceof ReportFailedError)
    return { message: `The report failed (${error.job.errorCode}).`, details: [] };
  if (error instanceof ReportTimedOutError)
    return { message: 'The report was not ready within 5 minutes.', details: [] };
  if (error instanceof ReportIntegrityError)
    return {
      message: 'The downloaded file is not the report: its size or SHA-256 differ. It was not saved.',
      details: [],
    };
  return { message: error instanceof Error ? error.message : String(error), details: [] };
}

/** Field errors of a 400 for one form, by the contract's camelCase field name. */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ValidationError)) return {};
  const byField: Record<string, string> = {};
  for (const problem of error.errors) byField[problem.field] = byField[problem.field] ?? problem.hint;
  return byField;
}

export function TextField(props: {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  error?: string | undefined;
  inputMode?: 'email' | 'text';
  required?: boolean;
  autoComplete?: string;
  hint?: string;
}) {
  const describedBy = [props.hint ? `${props.id}-hint` : '', props.error ? `${props.id}-error` : '']
    .filter(Boolean)
    .join(' ');
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        name={props.id}
        type="text"
        inputMode={props.inputMode}
        value={props.value}
        required={props.required}
        autoComplete={props.autoComplete}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={describedBy || undefined}
        onInput={(event) => props.onInput(event.currentTarget.value)}
      />
      {props.hint ? (
        <small id={`${props.id}-hint`} class="hint">
          {props.hint}
        </small>
      ) : null}
      {props.error ? (
        <small id={`${props.id}-error`} class="field-error">
          {props.error}
        </small>
      ) : null}
    </div>
  );
}

/** A page's heading, focused when the page opens so screen readers announce the new page. */
export function PageHeading({ children }: { children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <h1 tabIndex={-1} ref={heading}>
      {children}
    </h1>
  );
}

export const formatInstant = (iso: string | undefined | null): string =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '';

export const formatBytes = (bytes: number): string =>
  bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 * 1024
      ? `${(bytes / 1024).toFixed(1)} KiB`
      : `${(bytes / 1048576).toFixed(1)} MiB`;

/**
 * Previous / next over a cursor-paged list: `cursors` is the stack of page cursors walked so far
 * (the first is `undefined`, the first page), so "previous" pops and "next" pushes `nextCursor`.
 */
export function CursorPager(props: {
  label: string;
  cursors: ReadonlyArray<string | undefined>;
  onCursorsChange: (cursors: Array<string | undefined>) => void;
  nextCursor: string | null | undefined;
  loading: boolean;
  previousText?: string;
  nextText?: string;
}) {
  const { cursors, nextCursor, loading } = props;
  return (
    <nav class="pager" aria-label={props.label}>
      <button
        type="button"
        disabled={cursors.length <= 1 || loading}
        onClick={() => props.onCursorsChange(cursors.slice(0, -1))}
      >
        {props.previousText ?? 'Previous page'}
      </button>
      <span>Page {cursors.length}</span>
      <button
        type="button"
        disabled={!nextCursor || loading}
        onClick={() => nextCursor && props.onCursorsChange([...cursors, nextCursor])}
      >
        {props.nextText ?? 'Next page'}
      </button>
    </nav>
  );
}

/** Under a form: a summary when fields carry the API's 400s (each shown by its field), else the error. */
export function FormProblems(props: { error: unknown; problems: Record<string, string>; context: string }) {
  if (Object.keys(props.problems).length > 0) {
    return (
      <p class="field-error" role="alert">
        Please correct the highlighted fields.
      </p>
    );
  }
  return props.error !== undefined ? <ErrorNotice error={props.error} context={props.context} /> : null;
}

/**
 * A list as a table: a scrollable, focusable region named `label`, one column header per entry
 * of `columns`, `busy` while it loads, and `empty` (when given) as a row across every column.
 * `stickyLastColumn` keeps the last column (a row's actions) in view while a wide table scrolls sideways.
 */
export function DataTable(props: {
  label: string;
  columns: readonly string[];
  busy: boolean;
  empty?: ComponentChildren;
  stickyLastColumn?: boolean;
  children: ComponentChildren;
}) {
  return (
    <div
      class={props.stickyLastColumn ? 'table-wrap sticky-last' : 'table-wrap'}
      tabIndex={0}
      role="region"
      aria-label={props.label}
    >
      <table>
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th scope="col" key={column}>
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody aria-busy={props.busy ? 'true' : 'false'}>
          {props.empty ? (
            <tr>
              <td colSpan={props.columns.length}>{props.empty}</td>
            </tr>
          ) : null}
          {props.children}
        </tbody>
      </table>
    </div>
  );
}

/**
 * A form's submission state: `run` marks it busy, clears the last error, and keeps what the
 * action throws (the contract's error, shown by the form) until the next run or `clear`.
 */
export function useSubmission() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  async function run(action: () => Promise<void>): Promise<void> {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }
  const clear = useCallback(() => setError(undefined), []);
  return { busy, error, run, clear };
}

/**
 * A modal confirmation for an action that cannot be undone: a native `<dialog>` (focus kept inside,
 * Escape cancels), opened on mount with the focus on Cancel, the safe choice. `onCancel` runs when
 * it is dismissed (Cancel or Escape) and nothing else: the caller sends nothing. While `busy` it
 * cannot be dismissed; `error` (the action's failure) is shown inside, leaving it open.
 */
export function ConfirmDialog(props: {
  id: string;
  title: ComponentChildren;
  children: ComponentChildren;
  confirmText: string;
  busyText: string;
  busy: boolean;
  error: unknown;
  errorContext: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (dialog.current && !dialog.current.open) dialog.current.showModal();
    cancel.current?.focus();
  }, []);
  return (
    <dialog
      ref={dialog}
      class="confirm"
      aria-labelledby={`${props.id}-title`}
      aria-describedby={`${props.id}-description`}
      onCancel={(event) => {
        if (props.busy) event.preventDefault();
      }}
      onClose={props.onCancel}
    >
      <h2 id={`${props.id}-title`}>{props.title}</h2>
      <div id={`${props.id}-description`}>{props.children}</div>
      <ErrorNotice error={props.error} context={props.errorContext} />
      <div class="dialog-buttons">
        <button type="button" ref={cancel} disabled={props.busy} onClick={() => dialog.current?.close()}>
          Cancel
        </button>
        <button type="button" class="danger" disabled={props.busy} onClick={props.onConfirm}>
          {props.busy ? props.busyText : props.confirmText}
        </button>
      </div>
    </dialog>
  );
}

/** The confirmation before a user's erasure (DELETE /v1/users/{id}): what goes, and that it cannot be undone. */
export function EraseUserDialog(props: {
  userId: string;
  busy: boolean;
  error: unknown;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <ConfirmDialog
      id="erase-user"
      title={
        <>
          Erase user <code>{props.userId}</code>?
        </>
      }
      confirmText="Erase"
      busyText="Erasing…"
      busy={props.busy}
      error={props.error}
      errorContext="The user was not erased"
      onConfirm={props.onConfirm}
      onCancel={props.onCancel}
    >
      <p>
        This erases user <code>{props.userId}</code> from this organization: their record, their report jobs and PDFs,
        and the onboarding tokens sent to their e-mail address.
      </p>
      <p>
        <strong>It cannot be undone.</strong> The activity trail keeps the user id only.
      </p>
    </ConfirmDialog>
  );
}
