import { parseArgs, type ParseArgsConfig } from 'node:util';
import {
  ApiConnectionError,
  ApiError,
  ConflictError,
  OnboardingApiClient,
  ReportDownloadError,
  ReportFailedError,
  ReportIntegrityError,
  ReportNotReadyError,
  ReportTimedOutError,
  UnauthorizedError,
  ValidationError,
} from '#client/index.ts';
import { type CliIo, type Command, type CommandGroup, DEFAULT_API_URL, EXIT, type Values } from './command.ts';
import { auditCommands } from './commands/audit-commands.ts';
import { reportCommands } from './commands/report-commands.ts';
import { listenCommand, triggerCommand } from './commands/sandbox-commands.ts';
import { tokenCommands } from './commands/token-commands.ts';
import { usersCommands } from './commands/users-commands.ts';
import { webhookCommands } from './commands/webhook-commands.ts';
import * as help from './help.ts';
import { UsageError } from './user-filters.ts';

export { DEFAULT_API_URL, EXIT, type CliIo } from './command.ts';

const CONNECTION_OPTIONS = {
  'api-url': { type: 'string' },
  token: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

const commands: Record<string, CommandGroup> = {
  token: tokenCommands,
  report: reportCommands,
  users: usersCommands,
  webhook: webhookCommands,
  audit: auditCommands,
};

/** The sandbox's commands, of one word: `onboarding trigger`, `onboarding listen` (contract §23). */
const singleCommands: Record<string, Command> = {
  trigger: triggerCommand,
  listen: listenCommand,
};

/** Every command as `group name`, e.g. `token redeem`, or one word (`listen`): what the main help lists. */
export function commandNames(): string[] {
  return [
    ...Object.entries(commands).flatMap(([group, { commands: named }]) =>
      Object.keys(named).map((name) => `${group} ${name}`),
    ),
    ...Object.keys(singleCommands),
  ];
}

/** Runs one CLI invocation and returns its exit status. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const out = (text: string): void => void io.stdout.write(`${text}\n`);
  const err = (text: string): void => void io.stderr.write(`${text}\n`);
  const [group] = argv;

  if (group === undefined || group === '--help' || group === '-h' || group === 'help') {
    (group === undefined ? err : out)(help.MAIN_HELP);
    return group === undefined ? EXIT.usage : EXIT.ok;
  }
  const found = findCommand(argv);
  if ('unknown' in found) return usageError(err, `unknown command ${found.unknown}`, found.helpCommand);
  if ('groupHelp' in found) {
    (found.asked ? out : err)(found.groupHelp);
    return found.asked ? EXIT.ok : EXIT.usage;
  }
  const { command, helpCommand } = found;
  const dashes = command.trailingCommand ? found.rest.indexOf('--') : -1;
  const rest = dashes < 0 ? found.rest : found.rest.slice(0, dashes);
  const trailing = dashes < 0 ? [] : found.rest.slice(dashes + 1);

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
  if (!token && command.needsToken?.(values) !== false) {
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
    return await command.run({ values, positionals, trailing, client, io, out, err });
  } catch (error) {
    return reportFailure(error, err, io, helpCommand);
  }
}

type Found =
  | { command: Command; helpCommand: string; rest: string[] }
  | { groupHelp: string; asked: boolean }
  | { unknown: string; helpCommand: string };

/** The command `argv` names (`token redeem ...` or `listen ...`), or why there is none. */
function findCommand(argv: readonly string[]): Found {
  const [group, name, ...rest] = argv as [string, ...string[]];
  const single = Object.hasOwn(singleCommands, group) ? singleCommands[group] : undefined;
  if (single) return { command: single, helpCommand: `onboarding ${group}`, rest: argv.slice(1) };
  const commandGroup = commands[group];
  if (!commandGroup) return { unknown: group, helpCommand: 'onboarding' };
  if (name === undefined || name === '--help' || name === '-h')
    return { groupHelp: commandGroup.help, asked: name !== undefined };
  const command = commandGroup.commands[name];
  if (!command) return { unknown: `${group} ${name}`, helpCommand: `onboarding ${group}` };
  return { command, helpCommand: `onboarding ${group} ${name}`, rest };
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
