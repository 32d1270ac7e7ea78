import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import {
  ApiConnectionError,
  ApiError,
  type AuditAction,
  ConflictError,
  OnboardingApiClient,
  ReportDownloadError,
  ReportFailedError,
  ReportIntegrityError,
  ReportNotReadyError,
  ReportTimedOutError,
  DEFAULT_RESULT_KEYS,
  UnauthorizedError,
  ValidationError,
  type Fetch,
  type OnboardingTokenStatus,
  type ReportJob,
  type ReportJobCreated,
  type Timers,
  type UserStatusRecord,
  type UserStatusRequest,
  type WebhookEventType,
  WEBHOOK_EVENT_TYPES,
} from '#client/index.ts';
import * as help from './help.ts';
import { createReportProgressView, type ProgressStream } from './report-progress.ts';
import { formatTable } from './table.ts';
import { parseResultKeys, parseUserFilters, UsageError } from './user-filters.ts';

/** Exit statuses a script can rely on (see EXIT_CODES_HELP). */
export const EXIT = { ok: 0, apiError: 1, usage: 2, reportFailed: 3, downloadFailed: 4, interrupted: 130 } as const;

export const DEFAULT_API_URL = 'http://127.0.0.1:3000';
const MAX_PAGE_SIZE = 1000;
const TABLE_CELL_WIDTH_ON_TERMINAL = 40;

export interface CliIo {
  stdout: ProgressStream;
  stderr: ProgressStream;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Aborted on Ctrl-C. */
  signal?: AbortSignal;
  fetch?: Fetch;
  timers?: Timers;
}

type Values = Record<string, string | boolean | string[] | undefined>;

const CONNECTION_OPTIONS = {
  'api-url': { type: 'string' },
  token: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

interface Command {
  help: string;
  options: ParseArgsConfig['options'];
  positionals?: { names: string[]; required: number };
  run(context: CommandContext): Promise<number>;
}

interface CommandContext {
  values: Values;
  positionals: string[];
  client: OnboardingApiClient;
  io: CliIo;
  out: (text: string) => void;
  err: (text: string) => void;
}

const commands: Record<string, Record<string, Command>> = {
  token: {
    create: {
      help: help.TOKEN_CREATE_HELP,
      options: {
        email: { type: 'string' },
        'first-name': { type: 'string' },
        'last-name': { type: 'string' },
        'idempotency-key': { type: 'string' },
        json: { type: 'boolean' },
      },
      run: async ({ values, client, out }) => {
        const email = required(values, 'email');
        const created = await client.createOnboardingToken(
          { email, first_name: required(values, 'first-name'), last_name: required(values, 'last-name') },
          optionalIdempotencyKey(values),
        );
        if (values.json) out(JSON.stringify(created, null, 2));
        else
          out(
            `onboarding_token  ${created.onboarding_token}\ntokenId           ${created.tokenId}\nexpires_at        ${created.expires_at}\n(e-mailed to ${email})`,
          );
        return EXIT.ok;
      },
    },
    list: {
      help: help.TOKEN_LIST_HELP,
      options: {
        limit: { type: 'string' },
        cursor: { type: 'string' },
        status: { type: 'string' },
        json: { type: 'boolean' },
      },
      run: async ({ values, client, out, err, io }) => {
        const limit = values.limit === undefined ? undefined : integer(values, 'limit', 1, 100);
        const page = await client.listOnboardingTokens({
          limit,
          cursor: values.cursor as string | undefined,
          status: values.status as OnboardingTokenStatus | undefined,
        });
        if (values.json) {
          out(JSON.stringify(page, null, 2));
          return EXIT.ok;
        }
        const keys = ['tokenId', 'email', 'first_name', 'last_name', 'status', 'tokenHint', 'createdAt', 'expiresAt'];
        out(formatTable(page.results, keys, cellWidth(io)));
        if (page.nextCursor) err(`more: onboarding token list --cursor ${page.nextCursor}`);
        return EXIT.ok;
      },
    },
    redeem: {
      help: help.TOKEN_REDEEM_HELP,
      options: { json: { type: 'boolean' } },
      positionals: { names: ['token'], required: 1 },
      run: async ({ positionals, values, client, out }) => {
        const used = await client.redeemOnboardingToken(positionals[0]!);
        out(
          values.json
            ? JSON.stringify(used, null, 2)
            : `${used.first_name} ${used.last_name} <${used.email}>\ntokenId  ${used.tokenId}\nusedAt   ${used.usedAt}`,
        );
        return EXIT.ok;
      },
    },
    revoke: {
      help: help.TOKEN_REVOKE_HELP,
      options: {},
      positionals: { names: ['tokenId'], required: 1 },
      run: async ({ positionals, client, out }) => {
        await client.revokeOnboardingToken(positionals[0]!);
        out(`revoked ${positionals[0]!}`);
        return EXIT.ok;
      },
    },
    resend: {
      help: help.TOKEN_RESEND_HELP,
      options: { 'idempotency-key': { type: 'string' }, json: { type: 'boolean' } },
      positionals: { names: ['tokenId'], required: 1 },
      run: async ({ positionals, values, client, out }) => {
        const resent = await client.resendOnboardingToken(positionals[0]!, optionalIdempotencyKey(values));
        out(
          values.json
            ? JSON.stringify(resent, null, 2)
            : `onboarding_token  ${resent.onboarding_token}\ntokenId           ${resent.tokenId}\nexpires_at        ${resent.expires_at}\n(e-mailed; ${positionals[0]!} revoked if it was Issued)`,
        );
        return EXIT.ok;
      },
    },
  },
  report: {
    create: {
      help: help.REPORT_CREATE_HELP,
      options: {
        user: { type: 'string' },
        wait: { type: 'boolean' },
        out: { type: 'string' },
        'idempotency-key': { type: 'string' },
        json: { type: 'boolean' },
      },
      run: async (context) => {
        const { values, client, out, err } = context;
        const created = await client.createReportJob(
          { userId: required(values, 'user') },
          optionalIdempotencyKey(values),
        );
        const { job } = created;
        if (created.rateLimit)
          err(
            `report requests left in this 10-minute window: ${created.rateLimit.remaining} of ${created.rateLimit.limit}`,
          );
        if (!values.wait && values.out === undefined) {
          if (values.json) out(JSON.stringify({ job }, null, 2));
          else out(`job ${job.jobId} ${job.status} (user ${job.userId})\nnext: onboarding report status ${job.jobId}`);
          return EXIT.ok;
        }
        if (!values.json) out(`job ${job.jobId} ${job.status} (user ${job.userId})`);
        return waitAndDownload(context, job.jobId, job);
      },
    },
    status: {
      help: help.REPORT_STATUS_HELP,
      options: { json: { type: 'boolean' } },
      positionals: { names: ['jobId'], required: 1 },
      run: async ({ positionals, values, client, out }) => {
        const job = await client.getReportJob(positionals[0]!);
        out(values.json ? JSON.stringify(job, null, 2) : describeJob(job));
        return EXIT.ok;
      },
    },
    download: {
      help: help.REPORT_DOWNLOAD_HELP,
      options: { out: { type: 'string' }, json: { type: 'boolean' } },
      positionals: { names: ['jobId'], required: 1 },
      run: async (context) => {
        const job = await context.client.getReportJob(context.positionals[0]!);
        return download(context, job);
      },
    },
  },
  users: {
    query: {
      help: help.USERS_QUERY_HELP,
      options: {
        filter: { type: 'string', multiple: true },
        keys: { type: 'string' },
        limit: { type: 'string' },
        offset: { type: 'string' },
        all: { type: 'boolean' },
        json: { type: 'boolean' },
      },
      run: async ({ values, client, out, err, io }) => {
        const all = values.all === true;
        const limit = all
          ? Infinity
          : values.limit === undefined
            ? 50
            : integer(values, 'limit', 1, Number.MAX_SAFE_INTEGER);
        const offset = values.offset === undefined ? 0 : integer(values, 'offset', 0, Number.MAX_SAFE_INTEGER);
        const keys = values.keys === undefined ? undefined : parseResultKeys(values.keys as string);
        const request: UserStatusRequest = {
          ...(values.filter ? { filters: parseUserFilters(values.filter as string[]) } : {}),
          ...(keys ? { result_keys: keys } : {}),
          pagination: { limit: Math.min(limit, MAX_PAGE_SIZE), offset },
        };

        const records: UserStatusRecord[] = [];
        let total = 0;
        for await (const page of client.queryUserStatus(request, { signal: io.signal })) {
          total = page.pagination.total;
          records.push(...page.results.slice(0, limit - records.length));
          if (records.length >= limit) break;
        }
        if (values.json) {
          out(
            JSON.stringify(
              { results: records, pagination: { offset, limit: all ? records.length : limit, total } },
              null,
              2,
            ),
          );
          return EXIT.ok;
        }
        const columns = keys ?? (records[0] ? Object.keys(records[0]) : [...DEFAULT_RESULT_KEYS]);
        out(formatTable(records, columns, cellWidth(io)));
        const shown = records.length === 0 ? 'no records' : `records ${offset + 1}-${offset + records.length}`;
        const more = offset + records.length < total ? ` (more: --offset ${offset + records.length}, or --all)` : '';
        err(`${shown} of ${total}${more}`);
        return EXIT.ok;
      },
    },
    erase: {
      help: help.USERS_ERASE_HELP,
      options: {},
      positionals: { names: ['id'], required: 1 },
      run: async ({ positionals, client, out }) => {
        await client.eraseUser(positionals[0]!);
        out(`erased ${positionals[0]!}`);
        return EXIT.ok;
      },
    },
  },
};

commands.webhook = {
  create: {
    help: help.WEBHOOK_CREATE_HELP,
    options: {
      url: { type: 'string' },
      event: { type: 'string', multiple: true },
      // The API's member is "events": the plural is accepted as the same option.
      events: { type: 'string', multiple: true },
      json: { type: 'boolean' },
    },
    run: async ({ values, client, out, err }) => {
      const url = required(values, 'url');
      const events = [
        ...((values.event as string[] | undefined) ?? []),
        ...((values.events as string[] | undefined) ?? []),
      ];
      const listed = [...new Set(events.flatMap((event) => event.split(',')).map((event) => event.trim()))].filter(
        (event) => event !== '',
      );
      const unknown = listed.filter((event) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(event));
      if (unknown.length > 0)
        throw new UsageError(`unknown event type ${unknown.join(', ')}; one of ${WEBHOOK_EVENT_TYPES.join(', ')}`);
      const created = await client.createWebhookEndpoint({
        url,
        events: listed.length > 0 ? (listed as WebhookEventType[]) : [...WEBHOOK_EVENT_TYPES],
      });
      if (values.json) out(JSON.stringify(created, null, 2));
      else {
        out(`id      ${created.id}
url     ${created.url}
events  ${created.events.join(', ')}
secret  ${created.secret}`);
        err('(the secret is shown only now: keep it to verify messages)');
      }
      return EXIT.ok;
    },
  },
  list: {
    help: help.WEBHOOK_LIST_HELP,
    options: { json: { type: 'boolean' } },
    run: async ({ values, client, out, io }) => {
      const list = await client.listWebhookEndpoints();
      if (values.json) out(JSON.stringify(list, null, 2));
      else
        out(
          formatTable(
            list.results.map((endpoint) => ({ ...endpoint, events: endpoint.events.join(',') })),
            ['id', 'url', 'events', 'createdAt', 'disabled'],
            cellWidth(io),
          ),
        );
      return EXIT.ok;
    },
  },
  delete: {
    help: help.WEBHOOK_DELETE_HELP,
    options: {},
    positionals: { names: ['id'], required: 1 },
    run: async ({ positionals, client, out }) => {
      await client.deleteWebhookEndpoint(positionals[0]!);
      out(`deleted ${positionals[0]!}`);
      return EXIT.ok;
    },
  },
  test: {
    help: help.WEBHOOK_TEST_HELP,
    options: { json: { type: 'boolean' } },
    positionals: { names: ['id'], required: 1 },
    run: async ({ positionals, values, client, out }) => {
      const queued = await client.testWebhookEndpoint(positionals[0]!);
      out(values.json ? JSON.stringify(queued, null, 2) : `webhook.test queued (${queued.eventId})`);
      return EXIT.ok;
    },
  },
  deliveries: {
    help: help.WEBHOOK_DELIVERIES_HELP,
    options: { limit: { type: 'string' }, cursor: { type: 'string' }, json: { type: 'boolean' } },
    positionals: { names: ['id'], required: 1 },
    run: async ({ positionals, values, client, out, err, io }) => {
      const limit = values.limit === undefined ? undefined : integer(values, 'limit', 1, 100);
      const page = await client.listWebhookDeliveries(positionals[0]!, {
        limit,
        cursor: values.cursor as string | undefined,
      });
      if (values.json) {
        out(JSON.stringify(page, null, 2));
        return EXIT.ok;
      }
      const keys = ['messageId', 'type', 'status', 'attempts', 'lastResponseStatus', 'createdAt', 'nextAttemptAt'];
      out(formatTable(page.results, keys, cellWidth(io)));
      if (page.nextCursor) err(`more: onboarding webhook deliveries ${positionals[0]!} --cursor ${page.nextCursor}`);
      return EXIT.ok;
    },
  },
};

commands.audit = {
  list: {
    help: help.AUDIT_LIST_HELP,
    options: {
      action: { type: 'string' },
      target: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
      json: { type: 'boolean' },
    },
    run: async ({ values, client, out, err, io }) => {
      const page = await client.listAuditEvents({
        ...(values.limit === undefined ? {} : { limit: integer(values, 'limit', 1, 100) }),
        ...(values.cursor === undefined ? {} : { cursor: values.cursor as string }),
        // The API validates the action and the dates (400 with the field named).
        ...(values.action === undefined ? {} : { action: values.action as AuditAction }),
        ...(values.target === undefined ? {} : { targetId: values.target as string }),
        ...(values.from === undefined ? {} : { from: values.from as string }),
        ...(values.to === undefined ? {} : { to: values.to as string }),
      });
      if (values.json) {
        out(JSON.stringify(page, null, 2));
        return EXIT.ok;
      }
      const rows = page.results.map((event) => ({
        occurredAt: event.occurredAt,
        action: event.action,
        target: `${event.target.type} ${event.target.id}`,
        actor: [event.actor.sub, event.actor.clientId].filter(Boolean).join(' via ') || '-',
        requestId: event.requestId,
      }));
      out(formatTable(rows, ['occurredAt', 'action', 'target', 'actor', 'requestId'], cellWidth(io)));
      if (page.nextCursor) err(`more: onboarding audit list --cursor ${page.nextCursor}`);
      return EXIT.ok;
    },
  },
};

/** Every command as `group name`, e.g. `token redeem`: what the main help lists. */
export function commandNames(): string[] {
  return Object.entries(commands).flatMap(([group, named]) => Object.keys(named).map((name) => `${group} ${name}`));
}

const GROUP_HELP: Record<string, string> = {
  token: help.TOKEN_HELP,
  report: help.REPORT_HELP,
  users: help.USERS_HELP,
  webhook: help.WEBHOOK_HELP,
  audit: help.AUDIT_HELP,
};

/** Runs one CLI invocation and returns its exit status. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const out = (text: string): void => void io.stdout.write(`${text}\n`);
  const err = (text: string): void => void io.stderr.write(`${text}\n`);
  const [group, name, ...rest] = argv;

  if (group === undefined || group === '--help' || group === '-h' || group === 'help') {
    (group === undefined ? err : out)(help.MAIN_HELP);
    return group === undefined ? EXIT.usage : EXIT.ok;
  }
  const groupCommands = commands[group];
  if (!groupCommands) return usageError(err, `unknown command ${group}`, 'onboarding');
  if (name === undefined || name === '--help' || name === '-h') {
    (name === undefined ? err : out)(GROUP_HELP[group]!);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = groupCommands[name];
  if (!command) return usageError(err, `unknown command ${group} ${name}`, `onboarding ${group}`);
  const helpCommand = `onboarding ${group} ${name}`;

  let values: Values;
  let positionals: string[];
  // An operand may begin with '-' (an onboarding token is base64url: 1 in 64 does). The only short
  // option is -h, so `-x...` of three or more characters is taken as an operand, not options.
  const operands = new Map<string, string>();
  const args = rest.map((arg, index) => {
    if (command.positionals === undefined || !/^-[^-]./.test(arg)) return arg;
    const placeholder = `\u0000operand-${index}`;
    operands.set(placeholder, arg);
    return placeholder;
  });
  const operand = (arg: string) => operands.get(arg) ?? arg;
  try {
    const parsed = parseArgs({
      args,
      options: { ...CONNECTION_OPTIONS, ...command.options },
      strict: true,
      allowPositionals: command.positionals !== undefined,
    });
    values = Object.fromEntries(
      Object.entries(parsed.values).map(([key, value]) => [key, typeof value === 'string' ? operand(value) : value]),
    );
    positionals = parsed.positionals.map(operand);
  } catch (error) {
    return usageError(err, (error as Error).message, helpCommand);
  }
  if (values.help) {
    out(command.help);
    return EXIT.ok;
  }
  const expected = command.positionals;
  if (expected && (positionals.length < expected.required || positionals.length > expected.names.length)) {
    return usageError(err, `expected ${expected.names.map((n) => `<${n}>`).join(' ')}`, helpCommand);
  }

  const apiUrl = (values['api-url'] as string | undefined) ?? io.env.API_URL ?? DEFAULT_API_URL;
  const token = (values.token as string | undefined) ?? io.env.API_TOKEN;
  if (!/^https?:\/\/\S+$/.test(apiUrl))
    return usageError(err, `--api-url ${apiUrl} is not an http(s) URL`, helpCommand);
  if (!token) {
    return usageError(
      err,
      'no token: pass --token <jwt> or set API_TOKEN (local stack: export API_TOKEN=$(npm run -s token -- --org demo-org))',
      helpCommand,
    );
  }

  const client = new OnboardingApiClient({
    baseUrl: apiUrl,
    token,
    userAgent: 'onboarding-cli',
    ...(io.fetch ? { fetch: io.fetch } : {}),
    ...(io.timers ? { timers: io.timers } : {}),
  });
  try {
    return await command.run({ values, positionals, client, io, out, err });
  } catch (error) {
    return reportFailure(error, err, io, helpCommand);
  }
}

async function waitAndDownload(context: CommandContext, jobId: string, known: ReportJobCreated): Promise<number> {
  const { client, io, values, out } = context;
  const view = createReportProgressView(io.stderr);
  let job;
  try {
    job = await client.waitForReport(jobId, {
      job: known,
      signal: io.signal,
      onProgress: (progress) => view.status(progress),
      onWait: (wait) => view.wait(wait),
    });
  } finally {
    view.finish();
  }
  if (values.out === undefined) {
    out(values.json ? JSON.stringify({ job }, null, 2) : describeJob(job));
    return EXIT.ok;
  }
  return download(context, job);
}

async function download({ client, io, values, out }: CommandContext, job: ReportJob): Promise<number> {
  const view = createReportProgressView(io.stderr);
  let downloaded;
  try {
    const target = values.out === undefined ? undefined : path.resolve(io.cwd, values.out as string);
    // Without --out the file takes the service's suggested name, which needs the address first.
    const destination =
      target ?? path.resolve(io.cwd, (await client.getReportDownloadUrl(job.jobId, { signal: io.signal })).filename);
    downloaded = await client.downloadReport(job.jobId, destination, {
      job,
      signal: io.signal,
      onProgress: (p) => view.download(p),
    });
  } finally {
    view.finish();
  }
  if (values.json) out(JSON.stringify({ job, download: downloaded }, null, 2));
  else
    out(
      `saved ${path.relative(io.cwd, downloaded.path) || downloaded.path} (${downloaded.sizeBytes} bytes, sha256 ${downloaded.sha256} verified)`,
    );
  return EXIT.ok;
}

function describeJob(job: ReportJob): string {
  const lines: Array<[string, unknown]> = [
    ['jobId', job.jobId],
    ['status', job.status],
    ['userId', job.userId],
    ['templateVersion', job.templateVersion],
    ['createdAt', job.createdAt],
    ['updatedAt', job.updatedAt],
  ];
  if (job.status === 'COMPLETE')
    lines.push(
      ['completedAt', job.completedAt],
      ['sizeBytes', job.sizeBytes],
      ['sha256', job.sha256],
      ['durationMs', job.durationMs],
    );
  if (job.status === 'FAILED') lines.push(['errorCode', job.errorCode], ['durationMs', job.durationMs]);
  return lines.map(([key, value]) => `${key.padEnd(16)}${String(value)}`).join('\n');
}

function reportFailure(error: unknown, err: (text: string) => void, io: CliIo, helpCommand: string): number {
  if (io.signal?.aborted) {
    err('onboarding: interrupted');
    return EXIT.interrupted;
  }
  if (error instanceof UsageError) return usageError(err, error.message, helpCommand);
  if (error instanceof ReportFailedError) {
    err(`onboarding: ${error.message}`);
    return EXIT.reportFailed;
  }
  if (error instanceof ReportTimedOutError) {
    err(`onboarding: ${error.message}\nit may still finish: onboarding report status ${error.jobId}`);
    return EXIT.reportFailed;
  }
  if (error instanceof ReportIntegrityError || error instanceof ReportDownloadError) {
    err(`onboarding: ${error.message}`);
    return EXIT.downloadFailed;
  }
  if (error instanceof ReportNotReadyError) {
    err(`onboarding: ${error.message}; wait for it: onboarding report status ${error.job.jobId}`);
    return EXIT.apiError;
  }
  if (error instanceof ValidationError) {
    err(
      `onboarding: ${error.method} ${error.path} answered 400${error.requestId ? ` (request ${error.requestId})` : ''}:`,
    );
    for (const problem of error.errors) err(`  ${problem.field} ${problem.code}: ${problem.hint}`);
    return EXIT.apiError;
  }
  if (error instanceof ApiError) {
    err(`onboarding: ${error.message}`);
    if (error instanceof ConflictError && error.openJobId)
      err(`the open job: onboarding report status ${error.openJobId}`);
    if (error instanceof UnauthorizedError)
      err('check the token (--token or API_TOKEN): is it for this API and not expired?');
    if (error.retryAfterSeconds !== undefined) err(`retry after ${error.retryAfterSeconds} s`);
    return EXIT.apiError;
  }
  if (error instanceof ApiConnectionError) {
    err(
      `onboarding: cannot reach the API: ${error.message}${error.url.startsWith(DEFAULT_API_URL) ? ' (is the local stack running? npm start)' : ''}`,
    );
    return EXIT.apiError;
  }
  err(`onboarding: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return EXIT.apiError;
}

/** The problem and where to read more; the full help only on --help. */
function usageError(err: (text: string) => void, message: string, helpCommand: string): number {
  err(`onboarding: ${message}\nRun "${helpCommand} --help" for usage.`);
  return EXIT.usage;
}

function required(values: Values, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

function optionalIdempotencyKey(values: Values): { idempotencyKey?: string } {
  const key = values['idempotency-key'];
  return typeof key === 'string' ? { idempotencyKey: key } : {};
}

function integer(values: Values, name: string, min: number, max: number): number {
  const raw = values[name] as string;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new UsageError(
      `--${name} must be a whole number${max === Number.MAX_SAFE_INTEGER ? ` of at least ${min}` : ` from ${min} to ${max}`}`,
    );
  }
  return value;
}

const cellWidth = (io: CliIo): number => (io.stdout.isTTY ? TABLE_CELL_WIDTH_ON_TERMINAL : Infinity);
