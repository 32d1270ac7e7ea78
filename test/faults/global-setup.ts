import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startLocalStack } from '../../local/local-stack.ts';

/**
 * The fault tier's own local stack (emulators, router, pollers), separate from the integration
 * tier's, because its tests pause DynamoDB Local. Provides what the integration helpers read
 * (`baseUrl`, `endpoints`, `localEnv`) plus the database's process id.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const keysDir = await mkdtemp(join(tmpdir(), 'onboarding-fault-keys-'));
  try {
    const stack = await startLocalStack({ port: 0, quiet: true, keysDir });
    project.provide('baseUrl', stack.baseUrl);
    project.provide('endpoints', stack.endpoints);
    project.provide('localEnv', { ...stack.env });
    project.provide('databaseProcessId', stack.databaseProcessId);
    return async () => {
      process.kill(stack.databaseProcessId, 'SIGCONT');
      await stack.stop();
      await rm(keysDir, { recursive: true, force: true });
    };
  } catch (error) {
    await rm(keysDir, { recursive: true, force: true });
    throw error;
  }
}
