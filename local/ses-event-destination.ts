import { randomUUID } from 'node:crypto';
import type { EventBridgeEvent } from 'aws-lambda';
import type { HandlerLoader } from './handler-modules.ts';
import {
  buildLambdaContext,
  LOCAL_ACCOUNT_ID,
  LOCAL_LAMBDA_REGION,
  withTimeout,
  type RunningPoller,
} from './lambda-invocation.ts';
import { SES_EVENTS_PATH, type SimulatedSesEvent } from './ses-mailbox-simulator.ts';

/**
 * Stands in for the configuration set's EventBridge destination and its rule: reads the events
 * the SES emulator published (ses-mailbox-simulator.ts) every `intervalMs` and invokes the
 * function with each the rule matches (`detailTypes`), one at a time, as an `aws.ses`
 * EventBridge event. A failed invocation is tried twice more (EventBridge retries asynchronous
 * invocations), then reported and dropped.
 */
export interface SesEventDestinationOptions {
  sesEndpoint: string;
  function: { entry: string; name: string };
  /** The detail types the rule's pattern matches; the others invoke nothing, as in AWS. */
  detailTypes: readonly string[];
  loadHandler: HandlerLoader;
  intervalMs?: number;
  timeoutMs?: number;
  log?: (line: string) => void;
}

const ATTEMPTS = 3;

export function startSesEventDestination(options: SesEventDestinationOptions): RunningPoller {
  const timeoutMs = options.timeoutMs ?? 10_000;
  let after = 0;
  let stopped = false;
  let running: Promise<void> | undefined;

  async function deliver(event: SimulatedSesEvent): Promise<void> {
    const handler = await options.loadHandler(options.function.entry);
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      const context = buildLambdaContext(options.function.name, timeoutMs);
      try {
        await withTimeout(handler(eventBridgeEvent(event), context), timeoutMs);
        return;
      } catch (error) {
        if (attempt === ATTEMPTS) {
          console.error(`[ses events ${options.function.name}] event ${event.sequence} dropped:`, error);
        }
      }
    }
  }

  async function poll(): Promise<void> {
    const answer = await fetch(`${options.sesEndpoint}${SES_EVENTS_PATH}?after=${after}`);
    const { events } = (await answer.json()) as { events: SimulatedSesEvent[] };
    for (const event of events) {
      if (stopped) return;
      if (options.detailTypes.includes(event.detailType)) await deliver(event);
      after = event.sequence;
    }
    if (events.length > 0) options.log?.(`[ses events ${options.function.name}] ${events.length} event(s) counted`);
  }

  const timer = setInterval(() => {
    if (running || stopped) return;
    running = poll()
      .catch((error: unknown) => console.error(`[ses events ${options.function.name}] poll failed:`, error))
      .finally(() => (running = undefined));
  }, options.intervalMs ?? 200);
  timer.unref();

  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

function eventBridgeEvent(event: SimulatedSesEvent): EventBridgeEvent<string, Record<string, unknown>> {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': event.detailType,
    source: 'aws.ses',
    account: LOCAL_ACCOUNT_ID,
    time: new Date().toISOString(),
    region: LOCAL_LAMBDA_REGION,
    resources: [],
    detail: event.detail,
  };
}
