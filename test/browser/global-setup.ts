import type { TestProject } from 'vitest/node';
import { ensureDashboardBuilt } from '#local/dashboard.ts';
import { generateDemoUsers } from '#local/demo-users.ts';
import { connectAsAdmin, seedUsers } from '#local/seed-demo-data.ts';
import { setUpLocalStack } from '#test/support/local-stack-setup.ts';
import { staffedBrowserOrganizations } from './organizations.ts';
import { BROWSER_STAFF_TOKEN_SECONDS } from './token-lifetime.ts';

/**
 * The browser tier: the dashboard built (when its sources changed), one local stack serving it at
 * `/` on a free port, its identity provider on another free port. Each of the tier's organizations
 * (organizations.ts) is seeded with the demo users, and its staff sign in through that provider. It runs in its own vitest process
 * (`npm test`'s last step): a local stack owns its process's environment.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await ensureDashboardBuilt();
  const organizations = staffedBrowserOrganizations();
  // Staff access tokens of 30 s: the dashboard renews them (at 75 % of their life) while the tests run.
  // Report requests: a limit no browser test file can spend (each asserts its 202); the limit itself
  // has its own tests (test/integration/rate-limits.test.ts, test/unit/rate-limits/).
  const options = {
    dashboard: true,
    staffAccessTokenSeconds: BROWSER_STAFF_TOKEN_SECONDS,
    reportRateLimit: 100,
    staffedOrganizations: organizations,
  };
  return setUpLocalStack(project, 'browser', options, async (stack) => {
    const database = connectAsAdmin(stack.usersDatabase);
    try {
      for (const { orgId, name } of organizations) {
        await seedUsers({ database, orgId, users: generateDemoUsers({ orgId, organizationName: name }) });
      }
    } finally {
      await database.close();
    }
  });
}
