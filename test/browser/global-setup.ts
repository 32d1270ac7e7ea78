import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureDashboardBuilt } from '../../local/dashboard.ts';
import { startLocalStack } from '../../local/local-stack.ts';
import { seedDemoData } from '../../local/seed-demo-data.ts';

/**
 * The browser tier: the dashboard built (when its sources changed), one local stack serving it at
 * `/` on a free port with the demo organization seeded, and a throw-away signing key. It runs in
 * its own vitest process (`npm test`'s last step): a local stack owns its process's environment.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  await ensureDashboardBuilt();
  const keysDir = await mkdtemp(join(tmpdir(), 'onboarding-browser-keys-'));
  try {
    const stack = await startLocalStack({ port: 0, quiet: true, keysDir, dashboard: true });
    try {
      const demo = await seedDemoData(stack);
      project.provide('baseUrl', stack.baseUrl);
      project.provide('endpoints', stack.endpoints);
      project.provide('localEnv', { ...stack.env });
      project.provide('demoOrgId', demo.orgId);
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
