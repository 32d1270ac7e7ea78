import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startLocalStack } from '../../local/local-stack.ts';

/**
 * One local stack for the whole integration tier: emulators and router on free ports, quiet
 * logs, and a throw-away signing key, so nothing depends on a developer's `.local/` or ports.
 * Tests read `inject('baseUrl' | 'endpoints' | 'localEnv')`; copying `localEnv` into process.env
 * gives their own SDK clients the same endpoints and `issueDevToken` the same key (LOCAL_KEYS_DIR).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Lambda runs Node.js 22; the SDK's notice about Node.js 20 on this machine is only noise.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const keysDir = await mkdtemp(join(tmpdir(), 'onboarding-test-keys-'));
  try {
    const stack = await startLocalStack({ port: 0, quiet: true, keysDir });
    project.provide('baseUrl', stack.baseUrl);
    project.provide('endpoints', stack.endpoints);
    project.provide('localEnv', { ...stack.env });
    return async () => {
      await stack.stop();
      await rm(keysDir, { recursive: true, force: true });
    };
  } catch (error) {
    await rm(keysDir, { recursive: true, force: true });
    throw error;
  }
}
