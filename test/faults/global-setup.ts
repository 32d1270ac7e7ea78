import type { TestProject } from 'vitest/node';
import { setUpLocalStack } from '#test/support/local-stack-setup.ts';

/**
 * The fault tier's own local stack (emulators, router, pollers), separate from the integration
 * tier's, because its tests pause DynamoDB Local. Also provides the database's process id; the
 * teardown resumes it first, so stopping never waits on a paused process.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let databaseProcessId = 0;
  const stop = await setUpLocalStack(project, 'fault', {}, async (stack) => {
    databaseProcessId = stack.databaseProcessId;
    project.provide('databaseProcessId', databaseProcessId);
  });
  return async () => {
    process.kill(databaseProcessId, 'SIGCONT');
    await stop();
  };
}
