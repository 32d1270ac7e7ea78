import type { ParseArgsConfig } from 'node:util';
import { UsageError } from './user-filters.ts';
import type { Fetch, OnboardingApiClient, Timers } from '#client/index.ts';
import type { ProgressStream } from './report-progress.ts';

/** Exit statuses a script can rely on (see EXIT_CODES_HELP). */
export const EXIT = {
  ok: 0,
  apiError: 1,
  usage: 2,
  reportFailed: 3,
  downloadFailed: 4,
  reportInvalid: 5,
  interrupted: 130,
} as const;

export const DEFAULT_API_URL = 'http://127.0.0.1:3000';
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

export type Values = Record<string, string | boolean | string[] | undefined>;

/** One command (`token create`): its help, its options and operands, and what it does. */
export interface Command {
  help: string;
  options: ParseArgsConfig['options'];
  positionals?: { names: string[]; required: number };
  /** False when these options need no API call, so no token either (default: every command needs one). */
  needsToken?: (values: Values) => boolean;
  /** Takes a command after `--` (e.g. `listen ... -- node receiver.mjs`), given to `run` as `trailing`. */
  trailingCommand?: boolean;
  run(context: CommandContext): Promise<number>;
}

/** A command group (`token`): its help and its commands by name. */
export interface CommandGroup {
  help: string;
  commands: Record<string, Command>;
}

export interface CommandContext {
  values: Values;
  positionals: string[];
  /** The words after `--`, for a command that takes a command there; otherwise empty. */
  trailing: string[];
  client: OnboardingApiClient;
  io: CliIo;
  out: (text: string) => void;
  err: (text: string) => void;
}

export function required(values: Values, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function optionalIdempotencyKey(values: Values): { idempotencyKey?: string } {
  const key = values['idempotency-key'];
  return typeof key === 'string' ? { idempotencyKey: key } : {};
}

export function integer(values: Values, name: string, min: number, max: number): number {
  const raw = values[name] as string;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new UsageError(
      `--${name} must be a whole number${max === Number.MAX_SAFE_INTEGER ? ` of at least ${min}` : ` from ${min} to ${max}`}`,
    );
  }
  return value;
}

export const cellWidth = (io: CliIo): number => (io.stdout.isTTY ? TABLE_CELL_WIDTH_ON_TERMINAL : Infinity);
