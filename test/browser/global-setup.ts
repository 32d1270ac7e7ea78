import type { TestProject } from 'vitest/node';
import { ensureDashboardBuilt } from '#local/dashboard.ts';
import { seedDemoData } from '#local/seed-demo-data.ts';
import { setUpLocalStack } from '#test/support/local-stack-setup.ts';

/**
 * The browser tier: the dashboard built (when its sources changed), one local stack serving it at
 * `/` on a free port with the demo organization seeded. It runs in its own vitest process
 * (`npm test`'s last step): a local stack owns its process's environment.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await ensureDashboardBuilt();
  return setUpLocalStack(project, 'browser', { dashboard: true }, async (stack) => {
    const demo = await seedDemoData(stack);
    project.provide('demoOrgId', demo.orgId);
  });
}
