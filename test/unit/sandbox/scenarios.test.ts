import { describe, expect, it } from 'vitest';
import { tenantKey } from '#shared/domain/identity/tenant.ts';
import {
  listScenarios,
  sandboxScenarioOf,
  SCENARIO_ID_PREFIX,
  SCENARIO_IDS,
  scenarioUserOf,
  scenarioUsersOf,
} from '#shared/domain/sandbox/scenarios.ts';
import { parseUserRecord } from '#shared/domain/users/user-record-schema.ts';
import { ageOn } from '#shared/domain/reports/report-values.ts';

const orgId = 'acme';
const sandbox = tenantKey({ orgId, mode: 'sandbox' });
const live = tenantKey({ orgId, mode: 'live' });

describe('scenario users', () => {
  it('are every scenario in a sandbox key and none in live', () => {
    const today = new Date('2026-05-01T00:00:00Z');
    expect(scenarioUsersOf(sandbox, today).map((user) => user.id)).toEqual([...SCENARIO_IDS]);
    expect(scenarioUsersOf(live, today)).toEqual([]);
    expect(scenarioUserOf(live, 'sbx-clear', today)).toBeUndefined();
    expect(scenarioUserOf(sandbox, 'sbx-unknown', today)).toBeUndefined();
    expect(sandboxScenarioOf({ orgId: live, userId: 'sbx-fail' })).toBeUndefined();
    expect(sandboxScenarioOf({ orgId: sandbox, userId: 'sbx-fail' })?.report).toEqual({
      status: 'FAILED',
      errorCode: 'RENDER_FAILED',
    });
  });

  it.each(SCENARIO_IDS)('%s is a record the import accepts as it is, of the sandbox organization', (id) => {
    const user = scenarioUserOf(sandbox, id, new Date())!;
    expect(id.startsWith(SCENARIO_ID_PREFIX)).toBe(true);
    expect(user.organization_id).toBe(orgId);
    const parsed = parseUserRecord(orgId, user);
    expect(parsed).toEqual({ success: true, record: user });
  });

  it('keeps the minor a minor and the others adults whenever they are read', () => {
    for (const today of [
      '2026-01-01T00:00:00Z',
      '2026-02-28T23:59:59Z',
      '2031-03-01T00:00:00Z',
      '2044-12-31T00:00:00Z',
    ]) {
      const at = new Date(today);
      const ages = Object.fromEntries(scenarioUsersOf(sandbox, at).map((user) => [user.id, ageOn(user.dob, at)!]));
      expect(ages['sbx-minor']).toBeLessThan(18);
      expect(ages['sbx-minor']).toBeGreaterThanOrEqual(11);
      for (const [id, age] of Object.entries(ages)) if (id !== 'sbx-minor') expect(age).toBeGreaterThanOrEqual(18);
    }
    expect(scenarioUserOf(sandbox, 'sbx-minor', new Date())!.guardian_name).toBeTruthy();
  });

  it('lists each scenario with its description, its report and the user it gives', () => {
    const today = new Date();
    const listed = listScenarios(orgId, today);
    expect(listed.map((scenario) => scenario.id)).toEqual([...SCENARIO_IDS]);
    for (const scenario of listed) {
      expect(scenario.description.length).toBeGreaterThan(20);
      expect(scenario.user).toEqual(scenarioUserOf(sandbox, scenario.id, today));
    }
    expect(listed.find((scenario) => scenario.id === 'sbx-slow')?.report).toMatchObject({ completesAfterSeconds: 30 });
  });
});
