import { systemClock } from '#shared/domain/clock.ts';
import { listScenarios } from '#shared/domain/sandbox/scenarios.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';
import { sandboxScenarioListBody } from '#shared/presenters/sandbox-scenario-bodies.ts';
import { apiFunction } from '#shared/wiring/api.ts';

const { guards } = apiFunction('ListSandboxScenarios');

/** GET /v1/sandbox/scenarios: the scenario users every sandbox holds, each with its record and what its report does. */
export const handler = createApiHandler({
  ...guards,
  requiredScope: 'users:read',
  handle: ({ principal }) =>
    Promise.resolve(ok(sandboxScenarioListBody(listScenarios(principal.tenant.orgId, systemClock.now())))),
});
