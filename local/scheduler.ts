import { randomUUID } from 'node:crypto';
import type { ScheduledEvent } from 'aws-lambda';
import type { HandlerLoader } from './handler-modules.ts';
import {
  buildLambdaContext,
  LOCAL_ACCOUNT_ID,
  LOCAL_LAMBDA_REGION,
  withTimeout,
  type RunningPoller,
} from './lambda-invocation.ts';

/**
 * Stands in for an EventBridge schedule rule (`rate(...)`) targeting a function: invokes it with
 * a Scheduled Event every `intervalMs`, the first time one interval after start. A run still
 * going when the next is due makes that one skip, so runs never overlap.
 */

export interface ScheduleOptions {
  function: { entry: string; name: string };
  intervalMs: number;
  loadHandler: HandlerLoader;
  /** The function's timeout. Default 60 s. */
  timeoutMs?: number;
  /** Called after each successful run; errors are always reported. */
  onResult?: (result: unknown, durationMs: number) => void;
  onError?: (message: string, error: unknown) => void;
}

const DEFAULT_TIMEOUT_MS = 60_000;

export function startSchedule(options: ScheduleOptions): RunningPoller {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const onError = options.onError ?? ((message, error) => console.error(message, error));
  const label = `[schedule ${options.function.name}]`;
  let current: Promise<void> | undefined;

  async function invoke(): Promise<void> {
    const context = buildLambdaContext(options.function.name, timeoutMs);
    const startedAt = Date.now();
    try {
      const handler = await options.loadHandler(options.function.entry);
      const result = await withTimeout(handler(scheduledEvent(options.function.name), context), timeoutMs);
      options.onResult?.(result, Date.now() - startedAt);
    } catch (error) {
      onError(`${label} invocation ${context.awsRequestId} failed:`, error);
    }
  }

  const timer = setInterval(() => {
    if (current) return;
    current = invoke().finally(() => (current = undefined));
  }, options.intervalMs);
  // The schedule alone never keeps the process alive.
  timer.unref();

  let stopped: Promise<void> | undefined;
  return {
    stop: () =>
      (stopped ??= (async () => {
        clearInterval(timer);
        await current;
      })()),
  };
}

function scheduledEvent(functionName: string): ScheduledEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: LOCAL_ACCOUNT_ID,
    time: `${new Date().toISOString().slice(0, 19)}Z`,
    region: LOCAL_LAMBDA_REGION,
    resources: [`arn:aws:events:${LOCAL_LAMBDA_REGION}:${LOCAL_ACCOUNT_ID}:rule/onboarding-api-local-${functionName}`],
    detail: {},
  };
}
