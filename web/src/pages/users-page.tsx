import { useEffect, useRef, useState } from 'preact/hooks';
import {
  BOOLEAN_FILTER_FIELDS,
  DATE_RANGE_FIELDS,
  DEFAULT_RESULT_KEYS,
  INSTANT_RANGE_FIELDS,
  MOBILE_REGISTRATION_STATUSES,
  NUMBER_RANGE_FIELDS,
  REGISTRATION_CATEGORIES,
  REGISTRATION_STATUSES,
  STRING_FILTER_FIELDS,
  USER_FIELDS,
  ValidationError,
  type UserField,
  type UserStatusFilters,
  type UserStatusPage,
  type UserStatusRequest,
} from '#client/index.ts';
import { api } from '#web/src/api.ts';
import { EraseUserDialog, DataTable, ErrorNotice, PageHeading } from '#web/src/components.tsx';
import { csvFile, csvLine } from '#web/src/csv.ts';
import { parseHash } from '#web/src/hash-route.ts';
import { saveFile } from '#web/src/save-file.ts';
import { useCan } from '#web/src/session.ts';
import { countOf, displayValue, fieldLabel } from '#web/src/user-fields.ts';
import { UserView, userHref } from './user-view.tsx';

const RANGE_FIELDS = [...NUMBER_RANGE_FIELDS, ...DATE_RANGE_FIELDS, ...INSTANT_RANGE_FIELDS] as const;
type RangeField = (typeof RANGE_FIELDS)[number];
type LowerOperator = 'gte' | 'gt' | 'eq';
type UpperOperator = 'lte' | 'lt';
interface RangeInput {
  lowerOp: LowerOperator;
  lower: string;
  upperOp: UpperOperator;
  upper: string;
}
const EMPTY_RANGE: RangeInput = { lowerOp: 'gte', lower: '', upperOp: 'lte', upper: '' };
const PAGE_SIZES = [25, 50, 100, 250];
/** The largest page the API serves: the export reads the whole result in pages of this size. */
const EXPORT_PAGE_SIZE = 1000;

const label = fieldLabel;
const isNumberField = (field: RangeField): boolean => (NUMBER_RANGE_FIELDS as readonly string[]).includes(field);
/** Text inputs with a hint of the expected form: the API's 400 names any value it cannot read. */
const rangePlaceholder = (field: RangeField): string =>
  isNumberField(field)
    ? 'number'
    : (DATE_RANGE_FIELDS as readonly string[]).includes(field)
      ? 'YYYY-MM-DD'
      : 'ISO 8601';

/**
 * Users: a search box (`filters.search`), every filter of the user-status query, the columns to
 * show, paging with the total, CSV export, and (with `users:erase`) erasing a user after a
 * confirmation (contract §16). The first page is read when the page opens. `#/users/<id>` shows
 * one user (user-view.tsx).
 */
export function UsersPage() {
  const userId = userIdFromHash(window.location.hash);
  return userId === undefined ? <UserList /> : <UserView key={userId} userId={userId} />;
}

/** The user id of `#/users/<id>`, if the address names one. */
function userIdFromHash(hash: string): string | undefined {
  const [, id] = /^users\/(.+)$/.exec(parseHash(hash).path) ?? [];
  if (id === undefined) return undefined;
  try {
    return decodeURIComponent(id);
  } catch {
    return id;
  }
}

function UserList() {
  const [searchText, setSearchText] = useState('');
  const [strings, setStrings] = useState<Record<string, string>>({});
  const [booleans, setBooleans] = useState<Record<string, '' | 'true' | 'false'>>({});
  const [ranges, setRanges] = useState<Partial<Record<RangeField, RangeInput>>>({});
  const [columns, setColumns] = useState<UserField[]>([...DEFAULT_RESULT_KEYS]);
  const [pageSize, setPageSize] = useState(25);
  const [query, setQuery] = useState<UserStatusRequest>();
  const [page, setPage] = useState<UserStatusPage>();
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(false);
  const [exportProgress, setExportProgress] = useState<{ done: number; total: number | undefined }>();
  const [exportError, setExportError] = useState<unknown>();
  const [exported, setExported] = useState<number>();
  const exporting = useRef<AbortController | undefined>(undefined);
  const canErase = useCan('users:erase');
  /** The id of the user the confirmation is open for. */
  const [confirming, setConfirming] = useState<string>();
  const [erasing, setErasing] = useState(false);
  const [eraseError, setEraseError] = useState<unknown>();
  const [erased, setErased] = useState<string>();
  const erasedNotice = useRef<HTMLParagraphElement>(null);

  // The erased row's button is gone: the focus goes to the message saying what happened.
  useEffect(() => erasedNotice.current?.focus(), [erased]);
  // The first page of every user, as soon as the page opens.
  useEffect(() => {
    void run({ result_keys: columns, pagination: { limit: pageSize, offset: 0 } });
  }, []);

  function buildFilters(): UserStatusFilters {
    const filters: Record<string, unknown> = {};
    if (searchText.trim() !== '') filters.search = searchText.trim();
    for (const [field, value] of Object.entries(strings)) if (value.trim() !== '') filters[field] = value.trim();
    for (const [field, value] of Object.entries(booleans)) if (value !== '') filters[field] = value === 'true';
    for (const [field, range] of Object.entries(ranges) as Array<[RangeField, RangeInput]>) {
      const bounds: Record<string, unknown> = {};
      // A number field sends a number; anything else goes as typed so the API's 400 can name it.
      const value = (text: string) =>
        isNumberField(field) && text.trim() !== '' && !Number.isNaN(Number(text)) ? Number(text) : text.trim();
      if (range.lower.trim() !== '') bounds[range.lowerOp] = value(range.lower);
      if (range.upper.trim() !== '' && range.lowerOp !== 'eq') bounds[range.upperOp] = value(range.upper);
      if (Object.keys(bounds).length > 0) filters[field] = bounds;
    }
    return filters;
  }

  async function run(request: UserStatusRequest) {
    setLoading(true);
    setError(undefined);
    try {
      // A row's link and Erase need its id, asked for even when the id column is not shown (nor exported).
      const keys = request.result_keys;
      const sent = keys && !keys.includes('id') ? { ...request, result_keys: [...keys, 'id' as const] } : request;
      setPage(await api.queryUserStatusPage(sent));
      setQuery(request);
    } catch (caught) {
      setError(caught);
    } finally {
      setLoading(false);
    }
  }

  function search(event: Event) {
    event.preventDefault();
    setExported(undefined);
    setErased(undefined);
    void run({ filters: buildFilters(), result_keys: columns, pagination: { limit: pageSize, offset: 0 } });
  }

  function goTo(offset: number) {
    if (query) void run({ ...query, pagination: { limit: query.pagination?.limit ?? pageSize, offset } });
  }

  function askToErase(userId: string) {
    setEraseError(undefined);
    setConfirming(userId);
  }

  function cancelErasure() {
    setConfirming(undefined);
    setEraseError(undefined);
  }

  async function erase(userId: string) {
    setErasing(true);
    setEraseError(undefined);
    try {
      await api.eraseUser(userId);
    } catch (caught) {
      // The confirmation stays open with the API's message; nothing else changes.
      setEraseError(caught);
      return;
    } finally {
      setErasing(false);
    }
    setConfirming(undefined);
    setError(undefined);
    setExported(undefined);
    setExportError(undefined);
    setErased(userId);
    if (query && page) {
      // The same page again, without the row; the one before when it was the last page's only row.
      const limit = query.pagination?.limit ?? pageSize;
      const from = page.results.length <= 1 && offset > 0 ? Math.max(0, offset - limit) : offset;
      await run({ ...query, pagination: { limit, offset: from } });
    }
  }

  async function exportCsv() {
    if (!query) return;
    exporting.current?.abort();
    const controller = new AbortController();
    exporting.current = controller;
    setExportError(undefined);
    setExported(undefined);
    const keys = query.result_keys ?? [...DEFAULT_RESULT_KEYS];
    const lines = [csvLine(keys)];
    let rows = 0;
    setExportProgress({ done: 0, total: page?.pagination.total });
    try {
      for await (const chunk of api.queryUserStatus(
        { ...query, pagination: { limit: EXPORT_PAGE_SIZE, offset: 0 } },
        { signal: controller.signal },
      )) {
        for (const record of chunk.results) lines.push(csvLine(keys.map((key) => record[key])));
        rows += chunk.results.length;
        setExportProgress({ done: rows, total: chunk.pagination.total });
      }
      saveFile(csvFile(lines), 'users.csv', 'text/csv;charset=utf-8');
      setExported(rows);
    } catch (caught) {
      if (!controller.signal.aborted) setExportError(caught);
    } finally {
      setExportProgress(undefined);
    }
  }

  const invalid = new Set(error instanceof ValidationError ? error.errors.map((problem) => problem.field) : []);
  const isInvalid = (field: string) =>
    [...invalid].some((f) => f === `filters.${field}` || f.startsWith(`filters.${field}.`)) ? 'true' : undefined;
  const setString = (field: string, value: string) => setStrings((s) => ({ ...s, [field]: value }));
  const setRange = (field: RangeField, change: Partial<RangeInput>) =>
    setRanges((r) => ({ ...r, [field]: { ...EMPTY_RANGE, ...r[field], ...change } }));
  const shownKeys = query?.result_keys ?? columns;
  const offset = page?.pagination.offset ?? 0;
  const total = page?.pagination.total ?? 0;

  return (
    <section>
      <PageHeading>Users</PageHeading>
      <form class="card" onSubmit={search} noValidate aria-label="User search">
        <div class="search-row">
          <div class="field grow">
            <label for="user-search">Search</label>
            <input
              id="user-search"
              type="search"
              autoComplete="off"
              spellcheck={false}
              aria-describedby="user-search-hint"
              aria-invalid={isInvalid('search')}
              value={searchText}
              onInput={(event) => setSearchText(event.currentTarget.value)}
            />
          </div>
          <button type="submit" class="primary" disabled={loading || columns.length === 0}>
            Search
          </button>
        </div>
        <p id="user-search-hint" class="hint search-hint">
          The start of a name (any word), the start of an e-mail, or a user id. Not case-sensitive.
        </p>
        <details>
          <summary>Status filters</summary>
          <div class="form-grid">
            <div class="field">
              <label for="f-registration_status">Registration status</label>
              <select
                id="f-registration_status"
                aria-invalid={isInvalid('registration_status')}
                value={strings.registration_status ?? ''}
                onChange={(event) => setString('registration_status', event.currentTarget.value)}
              >
                <option value="">Any</option>
                <optgroup label="Categories">
                  {REGISTRATION_CATEGORIES.map((value) => (
                    <option key={value} value={value}>
                      {value}
                    </option>
                  ))}
                </optgroup>
                <optgroup label="Stored values">
                  {REGISTRATION_STATUSES.map((value) => (
                    <option key={value} value={value}>
                      {value}
                    </option>
                  ))}
                </optgroup>
              </select>
            </div>
            <div class="field">
              <label for="f-mobile_registration_status">Mobile registration status</label>
              <select
                id="f-mobile_registration_status"
                aria-invalid={isInvalid('mobile_registration_status')}
                value={strings.mobile_registration_status ?? ''}
                onChange={(event) => setString('mobile_registration_status', event.currentTarget.value)}
              >
                <option value="">Any</option>
                {MOBILE_REGISTRATION_STATUSES.map((value) => (
                  <option key={value} value={value}>
                    {value}
                  </option>
                ))}
              </select>
            </div>
            {BOOLEAN_FILTER_FIELDS.map((field) => (
              <div class="field" key={field}>
                <label for={`f-${field}`}>{label(field)}</label>
                <select
                  id={`f-${field}`}
                  aria-invalid={isInvalid(field)}
                  value={booleans[field] ?? ''}
                  onChange={(event) =>
                    setBooleans((b) => ({ ...b, [field]: event.currentTarget.value as '' | 'true' | 'false' }))
                  }
                >
                  <option value="">Any</option>
                  <option value="true">Yes</option>
                  <option value="false">No</option>
                </select>
              </div>
            ))}
          </div>
        </details>
        <details>
          <summary>Exact-match filters</summary>
          <div class="form-grid">
            {STRING_FILTER_FIELDS.map((field) => (
              <div class="field" key={field}>
                <label for={`f-${field}`}>{label(field)}</label>
                <input
                  id={`f-${field}`}
                  aria-invalid={isInvalid(field)}
                  value={strings[field] ?? ''}
                  onInput={(event) => setString(field, event.currentTarget.value)}
                />
              </div>
            ))}
          </div>
        </details>
        <details>
          <summary>Range filters</summary>
          <p class="hint">Dates as YYYY-MM-DD; timestamps as ISO 8601 (e.g. 2024-01-31T00:00:00Z).</p>
          <div class="range-grid">
            {RANGE_FIELDS.map((field) => {
              const range = ranges[field] ?? EMPTY_RANGE;
              return (
                <fieldset key={field} class="range">
                  <legend>{label(field)}</legend>
                  <div class="range-row">
                    <label for={`f-${field}-lower-op`} class="visually-hidden">
                      {label(field)}: lower bound operator
                    </label>
                    <select
                      id={`f-${field}-lower-op`}
                      value={range.lowerOp}
                      onChange={(event) => setRange(field, { lowerOp: event.currentTarget.value as LowerOperator })}
                    >
                      <option value="gte">at least (gte)</option>
                      <option value="gt">more than (gt)</option>
                      <option value="eq">exactly (eq)</option>
                    </select>
                    <label for={`f-${field}-lower`} class="visually-hidden">
                      {label(field)}: lower bound
                    </label>
                    <input
                      id={`f-${field}-lower`}
                      inputMode={isNumberField(field) ? 'decimal' : 'text'}
                      placeholder={rangePlaceholder(field)}
                      aria-invalid={isInvalid(field)}
                      value={range.lower}
                      onInput={(event) => setRange(field, { lower: event.currentTarget.value })}
                    />
                  </div>
                  <div class="range-row">
                    <label for={`f-${field}-upper-op`} class="visually-hidden">
                      {label(field)}: upper bound operator
                    </label>
                    <select
                      id={`f-${field}-upper-op`}
                      value={range.upperOp}
                      disabled={range.lowerOp === 'eq'}
                      onChange={(event) => setRange(field, { upperOp: event.currentTarget.value as UpperOperator })}
                    >
                      <option value="lte">at most (lte)</option>
                      <option value="lt">less than (lt)</option>
                    </select>
                    <label for={`f-${field}-upper`} class="visually-hidden">
                      {label(field)}: upper bound
                    </label>
                    <input
                      id={`f-${field}-upper`}
                      inputMode={isNumberField(field) ? 'decimal' : 'text'}
                      placeholder={rangePlaceholder(field)}
                      disabled={range.lowerOp === 'eq'}
                      aria-invalid={isInvalid(field)}
                      value={range.upper}
                      onInput={(event) => setRange(field, { upper: event.currentTarget.value })}
                    />
                  </div>
                </fieldset>
              );
            })}
          </div>
        </details>
        <details>
          <summary>Columns ({columns.length})</summary>
          <fieldset class="columns">
            <legend class="visually-hidden">Columns to show (result_keys)</legend>
            {USER_FIELDS.map((field) => (
              <label key={field} class="check">
                <input
                  type="checkbox"
                  name="column"
                  value={field}
                  checked={columns.includes(field)}
                  onChange={(event) =>
                    setColumns(
                      event.currentTarget.checked
                        ? USER_FIELDS.filter((f) => f === field || columns.includes(f))
                        : columns.filter((f) => f !== field),
                    )
                  }
                />{' '}
                {label(field)}
              </label>
            ))}
          </fieldset>
        </details>
        <div class="toolbar">
          <div class="field inline">
            <label for="page-size">Rows per page</label>
            <select
              id="page-size"
              value={pageSize}
              onChange={(event) => setPageSize(Number(event.currentTarget.value))}
            >
              {PAGE_SIZES.map((size) => (
                <option key={size} value={size}>
                  {size}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" disabled={loading || columns.length === 0}>
            Apply filters
          </button>
        </div>
      </form>

      <ErrorNotice error={error} context="The search failed" />

      {page && query ? (
        <>
          <div class="toolbar">
            <p role="status" data-testid="users-total">
              {total === 0
                ? 'No users match.'
                : page.results.length === 0
                  ? `No users on this page; ${countOf(total, 'user matches', 'users match')}.`
                  : `Showing ${offset + 1}–${offset + page.results.length} of ${countOf(total, 'user', 'users')}`}
            </p>
            <button
              type="button"
              onClick={() => void exportCsv()}
              disabled={exportProgress !== undefined || total === 0 || page.results.length === 0}
            >
              {total === 0
                ? 'Export as CSV'
                : `Export ${total === 1 ? '' : 'all '}${countOf(total, 'user', 'users')} as CSV`}
            </button>
            {exportProgress ? (
              <>
                <label for="export-progress">Exporting</label>
                <progress id="export-progress" max={exportProgress.total ?? total} value={exportProgress.done}>
                  {exportProgress.done} of {exportProgress.total ?? total}
                </progress>
                <span>
                  {exportProgress.done} / {exportProgress.total ?? total}
                </span>
                <button type="button" onClick={() => exporting.current?.abort()}>
                  Cancel export
                </button>
              </>
            ) : null}
          </div>
          {exported !== undefined ? (
            <p class="notice success" role="status" data-testid="export-done">
              Exported {countOf(exported, 'row', 'rows')} to users.csv.
            </p>
          ) : null}
          {erased !== undefined ? (
            <p class="notice success" role="status" tabIndex={-1} ref={erasedNotice} data-testid="user-erased">
              User <code>{erased}</code> erased.
            </p>
          ) : null}
          <ErrorNotice error={exportError} context="The export stopped" />
          <DataTable
            label="Users"
            columns={canErase ? [...shownKeys.map(label), 'Actions'] : shownKeys.map(label)}
            busy={loading}
            stickyLastColumn={canErase}
          >
            {page.results.map((record, index) => {
              const id = typeof record.id === 'string' ? record.id : undefined;
              return (
                <tr key={id ?? `${offset + index}`} data-user-id={id}>
                  {shownKeys.map((key) => (
                    <td key={key} data-label={label(key)} class={keepsOnOneLine(key) ? 'nowrap' : undefined}>
                      {key === 'id' && id !== undefined ? (
                        <a href={userHref(id)}>{id}</a>
                      ) : key === 'name' && id !== undefined && !shownKeys.includes('id') ? (
                        <a href={userHref(id)}>{displayValue(key, record[key]) || id}</a>
                      ) : (
                        displayValue(key, record[key])
                      )}
                    </td>
                  ))}
                  {canErase ? (
                    <td data-label="Actions">
                      {id !== undefined ? (
                        <button type="button" aria-label={`Erase user ${id}`} onClick={() => askToErase(id)}>
                          Erase
                        </button>
                      ) : null}
                    </td>
                  ) : null}
                </tr>
              );
            })}
          </DataTable>
          <nav class="pager" aria-label="User pages">
            <button
              type="button"
              disabled={offset === 0 || loading}
              onClick={() => goTo(Math.max(0, offset - (query.pagination?.limit ?? pageSize)))}
            >
              Previous page
            </button>
            <span>
              Page {Math.floor(offset / (query.pagination?.limit ?? pageSize)) + 1} of{' '}
              {Math.max(1, Math.ceil(total / (query.pagination?.limit ?? pageSize)))}
            </span>
            <button
              type="button"
              disabled={offset + page.results.length >= total || loading}
              onClick={() => goTo(offset + page.results.length)}
            >
              Next page
            </button>
          </nav>
        </>
      ) : null}
      {confirming !== undefined ? (
        <EraseUserDialog
          userId={confirming}
          busy={erasing}
          error={eraseError}
          onConfirm={() => void erase(confirming)}
          onCancel={cancelErasure}
        />
      ) : null}
    </section>
  );
}

/** Ids, dates and times read badly broken over lines: their cells keep them whole (the table scrolls instead). */
const keepsOnOneLine = (field: string): boolean =>
  field === 'id' || ([...DATE_RANGE_FIELDS, ...INSTANT_RANGE_FIELDS] as readonly string[]).includes(field);
