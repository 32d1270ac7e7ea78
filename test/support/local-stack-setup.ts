import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startLocalStack, type LocalStack, type LocalStackOptions } from '#local/local-stack.ts';
import { writeUsersDatabaseFile } from '#local/users-postgres.ts';

/** The tiers' request budget per organization, far above the contract's 50 per second. */
const TIER_REQUEST_BUDGET = { ratePerSecond: 1_000, burst: 2_000 };

/**
 * A tier's global setup: one local stack on free ports with a throw-away signing key, so nothing
 * depends on a developer's `.local/` or ports. Provides what the tests read (`baseUrl`,
 * `endpoints`, `localEnv`, `usersDatabase`, copied into process.env by the helpers) plus whatever `prepare` adds,
 * and returns the teardown. One stack per vitest process: a stack owns its process's environment.
 */
export async function setUpLocalStack(
  project: TestProject,
  name: string,
  options: Omit<LocalStackOptions, 'port' | 'quiet' | 'keysDir'> = {},
  prepare: (stack: LocalStack) => Promise<void> = async () => {},
): Promise<() => Promise<void>> {
  // The SDK's notice about the machine's Node.js version is only noise here.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const keysDir = await mkdtemp(join(tmpdir(), `onboarding-${name}-keys-`));
  try {
    const stack = await startLocalStack({
      // One organization's tests send hundreds of requests in seconds; the budget itself has its own
      // tests (test/integration/request-budget.test.ts, test/unit/rate-limits/request-budget.test.ts).
      requestBudget: TIER_REQUEST_BUDGET,
      ...options,
      port: 0,
      quiet: true,
      keysDir,
    });
    try {
      project.provide('baseUrl', stack.baseUrl);
      project.provide('endpoints', stack.endpoints);
      project.provide('localEnv', { ...stack.env });
      const { stop: _stop, ...usersDatabase } = stack.usersDatabase;
      project.provide('usersDatabase', usersDatabase);
      // As npm start does, for the commands the tests run (users:import).
      await writeUsersDatabaseFile(keysDir, stack.usersDatabase);
      await prepare(stack);
    } catch (error) {
      await stack.stop();
      throw error;
    }
    return async () => {
      await stack.stop();
      await rm(keysDir, { recursive: true, force: true });
    };
  } catch (error) {
    await rm(keysDir, { recursive: true, force: true });
    throw error;
  }
}
