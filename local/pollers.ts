import type { RunningEmulators } from './emulators.ts';
import type { HandlerLoader } from './handler-modules.ts';
import type { LocalResources } from './resources.ts';

/**
 * Background work the local stack runs beside the router, standing in for Lambda event source
 * mappings (e.g. an SQS poller that receives from the report queue and invokes the worker with a
 * real SQS event, honouring `batchItemFailures`). Started after the router, stopped before the
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

export interface RunningPoller {
  stop(): Promise<void>;
}

export type PollerFactory = (context: PollerContext) => RunningPoller | Promise<RunningPoller>;

/** The pollers `startLocalStack` starts by default. Empty until the report worker exists. */
export const localPollers: readonly PollerFactory[] = [];
