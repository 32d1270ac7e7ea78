import type { Scenario } from '#shared/domain/sandbox/scenarios.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import type { SandboxScenarioListBody } from '#shared/schemas/sandbox-responses.ts';

type ListedUser = SandboxScenarioListBody['results'][number]['user'];

/** GET /v1/sandbox/scenarios: the scenario definition as it is, so the listing says what the behaviour does. */
export function sandboxScenarioListBody(
  scenarios: ReadonlyArray<Scenario & { user: UserRecord }>,
): SandboxScenarioListBody {
  return {
    // Each scenario user is a record the import accepts as it is (test/unit/sandbox/scenarios.test.ts).
    results: scenarios.map(({ id, description, report, user }) => ({
      id,
      description,
      report,
      user: user as ListedUser,
    })),
  };
}
