import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/** Bounded timing loops: every loop has a fixed count, every wait a deadline. */

/** Milliseconds of each of `runs` calls, after `warmup` untimed calls. */
export async function timeEach(
  fn: () => Promise<unknown>,
  options: { warmup: number; runs: number },
): Promise<number[]> {
  for (let i = 0; i < options.warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < options.runs; i++) {
    const startedAt = performance.now();
    await fn();
    samples.push(performance.now() - startedAt);
  }
  return samples;
}

/** Milliseconds per call, one sample per batch of `perBatch` calls (for calls too short to time alone). */
export async function timePerOperation(
  fn: () => unknown,
  options: { warmup: number; batches: number; perBatch: number },
): Promise<number[]> {
  for (let i = 0; i < options.warmup; i++) await fn();
  const samples: number[] = [];
  for (let batch = 0; batch < options.batches; batch++) {
    const startedAt = performance.now();
    for (let i = 0; i < options.perBatch; i++) await fn();
    samples.push((performance.now() - startedAt) / options.perBatch);
  }
  return samples;
}

/** Wall-clock milliseconds of a process from spawn to exit; throws if it fails. */
export function timeProcess(command: string, args: readonly string[], env: Record<string, string>): number {
  const startedAt = performance.now();
  const result = spawnSync(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'], timeout: 30_000 });
  const elapsed = performance.now() - startedAt;
  if (result.status !== 0) {
    throw new Error(
      `${[command, ...args].join(' ')} exited with ${result.status ?? result.signal}: ${result.stderr.toString().slice(0, 2000)}`,
    );
  }
  return elapsed;
}

/**
 * Calls `call` at `ratePerSecond`, one call at a time (a late answer delays the next call, never
 * stacks calls up), and hands each answer to `each`, until `more(count)` says stop.
 */
export async function pacedCalls<T>(
  ratePerSecond: number,
  call: () => Promise<T>,
  more: (count: number) => boolean,
  each: (answer: T) => void,
): Promise<void> {
  const interval = 1000 / ratePerSecond;
  for (let next = performance.now(), count = 0; more(count); count++) {
    each(await call());
    next += interval;
    const wait = next - performance.now();
    if (wait > 0) await sleep(wait);
  }
}

/** Milliseconds (`ms` of each answer) of `runs` paced calls, after `warmup` paced calls not kept. */
export async function pacedSamples(
  ratePerSecond: number,
  call: () => Promise<{ ms: number }>,
  options: { warmup: number; runs: number },
): Promise<number[]> {
  await pacedCalls(
    ratePerSecond,
    call,
    (count) => count < options.warmup,
    () => undefined,
  );
  const samples: number[] = [];
  await pacedCalls(
    ratePerSecond,
    call,
    (count) => count < options.runs,
    ({ ms }) => void samples.push(ms),
  );
  return samples;
}

export { setTimeout as sleep } from 'node:timers/promises';
