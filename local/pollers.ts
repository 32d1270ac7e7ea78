import {
  DEAD_LETTER_HANDLER_TIMEOUT_SECONDS,
  SWEEP_TIMEOUT_SECONDS,
  WORKER_TIMEOUT_SECONDS,
} from '#shared/queue/report-pipeline-timing.ts';
import {
  COUNTED_SES_EVENT_TYPES,
  emailEventsFunction,
  reportPipelineFunctions,
  sandboxWipeFunction,
  webhookDeliveryFunction,
  webhookRepublishFunction,
} from '#shared/config/api-routes.ts';
import {
  WEBHOOK_DELIVERY_TIMEOUT_SECONDS,
  WEBHOOK_LANE_CONSUMERS,
  WEBHOOK_REPUBLISH_TIMEOUT_SECONDS,
} from '#shared/queue/webhook-messages.ts';
import { SANDBOX_WIPE_TIMEOUT_SECONDS } from '#shared/queue/sandbox-wipe-messages.ts';
import type { RunningEmulators } from './emulators.ts';
import type { HandlerLoader } from './handler-modules.ts';
import type { LocalResources } from './resources.ts';
import type { RunningPoller } from './lambda-invocation.ts';

export type { RunningPoller };
import { startSchedule } from './scheduler.ts';
import { startSqsPoller } from './sqs-poller.ts';
import { startSesEventDestination } from './ses-event-destination.ts';

/**
 * Background work the local stack runs beside the router, standing in for what invokes the
 * report pipeline's functions in AWS: the SQS event source mappings of the worker and the
 * dead-letter handler, and the sweep's schedule. Started after the router, stopped before the
 * emulators.
 */
export interface PollerContext {
  /** The environment the stack set; already in process.env. */
  env: Readonly<Record<string, string>>;
  endpoints: RunningEmulators['endpoints'];
  resources: LocalResources;
  /** The same cached loader the router uses, so a function module is imported once. */
  loadHandler: HandlerLoader;
  quiet: boolean;
}

export type PollerFactory = (context: PollerContext) => RunningPoller | Promise<RunningPoller>;

export interface ReportPipelineOptions {
  /** How often the sweep runs; default LOCAL_SWEEP_INTERVAL_MS, else 60 000 (the deployed rate). */
  sweepIntervalMs?: number;
}

export const SWEEP_INTERVAL_VARIABLE = 'LOCAL_SWEEP_INTERVAL_MS';
const DEFAULT_SCHEDULE_INTERVAL_MS = 60_000;

/**
 * Worker on the report queue, dead-letter handler on its DLQ, and the timed-out job sweep, with
 * the batch sizes and timeouts lib/report-pipeline-construct.ts deploys them with.
 */
export function reportPipelinePollers(options: ReportPipelineOptions = {}): PollerFactory[] {
  const log = (context: PollerContext) => (context.quiet ? undefined : (line: string) => console.log(line));
  return [
    (context) =>
      startSqsPoller({
        queue: context.resources.reportQueue,
        endpoint: context.endpoints.sqs,
        function: reportPipelineFunctions.worker,
        batchSize: 5,
        timeoutMs: WORKER_TIMEOUT_SECONDS * 1000,
        loadHandler: context.loadHandler,
        log: log(context),
      }),
    (context) =>
      startSqsPoller({
        queue: context.resources.reportDlq,
        endpoint: context.endpoints.sqs,
        function: reportPipelineFunctions.deadLetters,
        batchSize: 10,
        timeoutMs: DEAD_LETTER_HANDLER_TIMEOUT_SECONDS * 1000,
        loadHandler: context.loadHandler,
        log: log(context),
      }),
    (context) =>
      startSchedule({
        function: reportPipelineFunctions.sweep,
        intervalMs: options.sweepIntervalMs ?? intervalFromEnv(SWEEP_INTERVAL_VARIABLE),
        timeoutMs: SWEEP_TIMEOUT_SECONDS * 1000,
        loadHandler: context.loadHandler,
        // A line only when the sweep found something: it runs every minute.
        onResult: (result, durationMs) => {
          const timedOut = (result as { timedOut?: number } | undefined)?.timedOut ?? 0;
          if (timedOut > 0)
            log(context)?.(
              `[schedule ${reportPipelineFunctions.sweep.name}] ${timedOut} job(s) timed out (${durationMs} ms)`,
            );
        },
      }),
  ];
}

/** A schedule's local interval from `variable`, else the deployed rate (every minute). */
function intervalFromEnv(variable: string): number {
  const value = process.env[variable];
  if (value === undefined || value === '') return DEFAULT_SCHEDULE_INTERVAL_MS;
  const intervalMs = Number(value);
  if (!Number.isInteger(intervalMs) || intervalMs < 100) {
    throw new Error(`${variable} must be a whole number of milliseconds, at least 100, got "${value}"`);
  }
  return intervalMs;
}

export interface WebhookPollerOptions {
  /** How often pending events are republished; default LOCAL_REPUBLISH_INTERVAL_MS, else 60 000 (the deployed rate). */
  republishIntervalMs?: number;
}

export const REPUBLISH_INTERVAL_VARIABLE = 'LOCAL_REPUBLISH_INTERVAL_MS';

/**
 * The webhook delivery function on both lanes, as lib/webhooks-construct.ts deploys it: per lane
 * the event source's batch size, and its maximum concurrency as concurrent batches; and the
 * schedule that republishes the events SQS refused.
 */
export function webhookDeliveryPollers(options: WebhookPollerOptions = {}): PollerFactory[] {
  const lanes = [
    { queue: (context: PollerContext) => context.resources.webhookQueue, consumers: WEBHOOK_LANE_CONSUMERS.fast },
    { queue: (context: PollerContext) => context.resources.webhookSlowQueue, consumers: WEBHOOK_LANE_CONSUMERS.slow },
  ];
  const deliveries = lanes.map(
    (lane) => (context: PollerContext) =>
      startSqsPoller({
        queue: lane.queue(context),
        endpoint: context.endpoints.sqs,
        function: webhookDeliveryFunction,
        batchSize: lane.consumers.batchSize,
        maxConcurrentBatches: lane.consumers.maxConcurrency,
        timeoutMs: WEBHOOK_DELIVERY_TIMEOUT_SECONDS * 1000,
        loadHandler: context.loadHandler,
        log: context.quiet ? undefined : (line: string) => console.log(line),
      }),
  );
  const republish: PollerFactory = (context) =>
    startSchedule({
      function: webhookRepublishFunction,
      intervalMs: options.republishIntervalMs ?? intervalFromEnv(REPUBLISH_INTERVAL_VARIABLE),
      timeoutMs: WEBHOOK_REPUBLISH_TIMEOUT_SECONDS * 1000,
      loadHandler: context.loadHandler,
      onResult: (result, durationMs) => {
        const republished = (result as { republished?: number } | undefined)?.republished ?? 0;
        if (republished > 0 && !context.quiet)
          console.log(
            `[schedule ${webhookRepublishFunction.name}] ${republished} pending event(s) queued (${durationMs} ms)`,
          );
      },
    });
  return [...deliveries, republish];
}

/**
 * The SES configuration set's event destination (EventBridge in AWS, lib/mail-construct.ts): the
 * events the SES emulator publishes go to the function that counts them per organization.
 */
export function emailEventPollers(): PollerFactory[] {
  return [
    (context) =>
      startSesEventDestination({
        sesEndpoint: context.endpoints.ses,
        function: emailEventsFunction,
        detailTypes: COUNTED_SES_EVENT_TYPES,
        loadHandler: context.loadHandler,
        log: context.quiet ? undefined : (line: string) => console.log(line),
      }),
  ];
}

/** DELETE /v1/sandbox's consumer on the wipe queue, as lib/sandbox-wipe-construct.ts deploys it (one wipe a batch). */
export function sandboxWipePollers(): PollerFactory[] {
  return [
    (context) =>
      startSqsPoller({
        queue: context.resources.sandboxWipeQueue,
        endpoint: context.endpoints.sqs,
        function: sandboxWipeFunction,
        batchSize: 1,
        timeoutMs: SANDBOX_WIPE_TIMEOUT_SECONDS * 1000,
        loadHandler: context.loadHandler,
        log: context.quiet ? undefined : (line: string) => console.log(line),
      }),
  ];
}

/** The pollers `startLocalStack` starts by default. */
export const localPollers: readonly PollerFactory[] = [
  ...reportPipelinePollers(),
  ...webhookDeliveryPollers(),
  ...emailEventPollers(),
  ...sandboxWipePollers(),
];
