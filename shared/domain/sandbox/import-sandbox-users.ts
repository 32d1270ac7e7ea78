import { InvalidInputError, type FieldProblem } from '#shared/domain/errors.ts';
import { tenantKey, type Tenant } from '#shared/domain/identity/tenant.ts';
import { parseUserRecord } from '#shared/domain/users/user-record-schema.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import { SCENARIO_ID_PREFIX } from './scenarios.ts';

/** Records per `POST /v1/sandbox/users` (docs/contract.md §23). */
export const MAX_SANDBOX_USERS_PER_CALL = 1_000;

/** Where a sandbox's own users are stored (the users database, under the sandbox's key). */
export interface SandboxUserStore {
  /** Why the store could not hold each record as it is, by index (none: it can); nothing is written. */
  storageProblems(key: string, records: readonly UserRecord[]): Array<{ index: number; problems: string[] }>;
  /** Stores every record under `key`, a record with a stored id replacing it; all of them or none. */
  putAll(key: string, records: readonly UserRecord[]): Promise<void>;
}

/**
 * Primary course: validate every record as the import does (`parseUserRecord`, for the sandbox's
 * organization), refuse ids a scenario user holds or may hold (`sbx-`) and an id given twice,
 * check the store can hold each one, and only then store them all under the sandbox's key. One
 * bad record is a 400 naming it (`users[3].created_at`), and nothing of the call is stored.
 */
export function importSandboxUsers(deps: { users: SandboxUserStore }) {
  return async (tenant: Tenant, inputs: readonly unknown[]): Promise<{ imported: number }> => {
    if (tenant.mode !== 'sandbox') throw new Error('sandbox users are imported into a sandbox only');
    const key = tenantKey(tenant);
    const problems: FieldProblem[] = [];
    const records: UserRecord[] = [];
    const seen = new Map<string, number>();
    inputs.forEach((input, index) => {
      const parsed = parseUserRecord(tenant.orgId, input);
      if (!parsed.success) {
        problems.push(...parsed.problems.map((hint) => recordProblem(index, 'isUserRecord', hint)));
        return;
      }
      const { id } = parsed.record;
      if (id.startsWith(SCENARIO_ID_PREFIX)) {
        problems.push(
          recordProblem(
            index,
            'isNotScenarioId',
            `id ${id}: ids starting ${SCENARIO_ID_PREFIX} are the scenario users'`,
          ),
        );
      } else if (seen.has(id)) {
        problems.push(recordProblem(index, 'isUnique', `id ${id} is also users[${seen.get(id)!}]`));
      }
      seen.set(id, seen.get(id) ?? index);
      records.push(parsed.record);
    });
    if (problems.length === 0) {
      for (const refused of deps.users.storageProblems(key, records)) {
        problems.push(...refused.problems.map((hint) => recordProblem(refused.index, 'isStorable', hint)));
      }
    }
    if (problems.length > 0) throw new InvalidInputError(problems);
    await deps.users.putAll(key, records);
    return { imported: records.length };
  };
}

function recordProblem(index: number, code: string, hint: string): FieldProblem {
  return { field: `users[${index}]`, code, hint: `users[${index}]: ${hint}` };
}
