import { describe, expect, it } from 'vitest';
import { DEMO_ORG_ID, DEMO_ORGANIZATION_NAME, generateDemoUsers, WELL_KNOWN_DEMO_USERS } from '#local/demo-users.ts';
import { seedUsers } from '#local/seed-demo-data.ts';
import { PostgresUserDirectory } from '#shared/adapters/postgres/user-directory.ts';
import { parseUserRecord } from '#shared/domain/users/user-record-schema.ts';
import {
  MOBILE_REGISTRATION_STATUSES,
  REGISTRATION_STATUSES,
  USER_RECORD_FIELDS,
} from '#shared/domain/users/user-record.ts';
import { uniqueOrg } from '#test/support/api-client.ts';
import { usersDatabaseAsAdmin } from '#test/support/users-database.ts';

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

describe('demo users', () => {
  const users = generateDemoUsers();

  it('are the same on every run', () => {
    expect(generateDemoUsers()).toEqual(users);
    expect(generateDemoUsers({ seed: 7 })).not.toEqual(users);
  });

  it('are a few hundred users of the demo organization with unique ids of 1 to 16 characters and unique e-mails', () => {
    expect(users.length).toBe(300);
    expect(new Set(users.map((u) => u.id)).size).toBe(users.length);
    expect(users.every((u) => u.id.length >= 1 && u.id.length <= 16)).toBe(true);
    expect(new Set(users.map((u) => u.email!.toLowerCase())).size).toBe(users.length);
    expect(
      users.every((u) => u.organization_id === DEMO_ORG_ID && u.organization_name === DEMO_ORGANIZATION_NAME),
    ).toBe(true);
    expect(users.map((u) => u.id)).toEqual(expect.arrayContaining(Object.values(WELL_KNOWN_DEMO_USERS)));
  });

  it('cover every registration and mobile registration status', () => {
    expect(new Set(users.map((u) => u.registration_status))).toEqual(new Set(REGISTRATION_STATUSES));
    expect(new Set(users.map((u) => u.mobile_registration_status))).toEqual(new Set(MOBILE_REGISTRATION_STATUSES));
  });

  it('have names and addresses in every script a report renders (docs/contract.md §10)', () => {
    const scripts: Array<[string, RegExp, RegExp]> = [
      ['Latin with accents', /[À-ÿĀ-ž]/u, /[À-ÿĀ-ž]/u],
      ['Greek', /\p{Script=Greek}/u, /\p{Script=Greek}/u],
      ['Cyrillic', /\p{Script=Cyrillic}/u, /\p{Script=Cyrillic}/u],
      ['Chinese (simplified)', /[伟芳娜静强张刘陈]/u, /长安街|南京路|建国路/u],
      ['Chinese (traditional)', /[陳黃張吳淑傑]/u, /忠孝東路|信義路|中山北路|松仁路/u],
      ['Japanese', /[\p{Script=Hiragana}\p{Script=Katakana}]|花子|一郎|健太/u, /千代田/u],
      ['Korean', /\p{Script=Hangul}/u, /\p{Script=Hangul}/u],
      ['Arabic', /\p{Script=Arabic}/u, /\p{Script=Arabic}/u],
      ['Hebrew', /\p{Script=Hebrew}/u, /\p{Script=Hebrew}/u],
      ['Devanagari', /\p{Script=Devanagari}/u, /\p{Script=Devanagari}/u],
      ['Thai', /\p{Script=Thai}/u, /\p{Script=Thai}/u],
    ];
    for (const [script, name, address] of scripts) {
      expect(users.filter((u) => name.test(u.name!)).length, `${script} names`).toBeGreaterThanOrEqual(2);
      expect(
        users.some((u) => address.test(u.full_address ?? '')),
        `${script} addresses`,
      ).toBe(true);
    }
    const multiScript = users.find((u) => u.id === WELL_KNOWN_DEMO_USERS.multiScript)!;
    const matches = JSON.stringify(multiScript.idcheck_pep_sanction_result);
    for (const pattern of [/\p{Script=Arabic}/u, /\p{Script=Han}/u, /\p{Script=Devanagari}/u]) {
      expect(matches).toMatch(pattern);
    }
  });

  it('never clear a screening with an active sanction match, and give each match the gender of its name', () => {
    const results = users.flatMap((u) => (u.idcheck_pep_sanction_result ? [u.idcheck_pep_sanction_result] : []));
    for (const result of results) {
      if (result.sanction_result.some((entry) => entry.status === 'Active')) expect(result.status).toBe('Flagged');
    }
    const entries = results.flatMap((r) => [...r.pep_result, ...r.sanction_result]);
    const genders = new Map<string, Set<string>>();
    for (const entry of entries) {
      const seen = genders.get(entry.firstName!) ?? new Set<string>();
      seen.add(entry.gender!);
      genders.set(entry.firstName!, seen);
    }
    for (const [firstName, seen] of genders) expect([...seen], firstName).toHaveLength(1);
    expect(genders.get('Олександр')).toEqual(new Set(['male']));
    expect(genders.get('Олександра')).toEqual(new Set(['female']));
  });

  it('give every minor a guardian, and dates and instants in ISO form', () => {
    for (const user of users) {
      expect(user.dob).toMatch(ISO_DATE);
      expect(user.created_at).toMatch(ISO_INSTANT);
      expect(user.updated_at).toMatch(ISO_INSTANT);
      expect(user.connection_status_updated_at).toMatch(ISO_INSTANT);
      expect(user.updated_at! >= user.created_at).toBe(true);
      if (user.age! < 18) {
        expect(user.guardian_name).toMatch(/\S/);
        expect(user.guardian_dob).toMatch(ISO_DATE);
        expect(user.guardian_age).toBeGreaterThanOrEqual(18);
      }
      expect(Object.keys(user).every((field) => (USER_RECORD_FIELDS as readonly string[]).includes(field))).toBe(true);
    }
    const instants = users.map((u) => u.created_at).sort();
    expect(Date.parse(instants.at(-1)!) - Date.parse(instants[0]!)).toBeGreaterThan(650 * 24 * 3600 * 1000);
  });

  it('include screening results with zero to several PEP and sanction matches, each with addresses', () => {
    const results = users.flatMap((u) => (u.idcheck_pep_sanction_result ? [u.idcheck_pep_sanction_result] : []));
    const pepCounts = new Set(results.map((r) => r.pep_result.length));
    expect(pepCounts.has(0)).toBe(true);
    expect(Math.max(...pepCounts)).toBeGreaterThanOrEqual(3);
    expect(results.some((r) => r.sanction_result.length > 0)).toBe(true);
    const entries = results.flatMap((r) => [...r.pep_result, ...r.sanction_result]);
    for (const entry of entries) {
      expect(entry).toMatchObject({
        notes: expect.any(Array),
        aliases: expect.any(Array),
        datasets: expect.any(Array),
        addresses: expect.arrayContaining([
          expect.objectContaining({ city: expect.any(String), countryIsoCode: expect.stringMatching(/^[A-Z]{2}$/) }),
        ]),
        ddEntries: expect.any(Array),
        evidences: expect.any(Array),
        griEntries: expect.any(Array),
        insEntries: expect.any(Array),
        isDeleted: expect.any(Boolean),
        isDeceased: expect.any(Boolean),
        version: expect.any(Number),
      });
    }
  });
});

describe('seeding users', () => {
  it('writes every record, and writing them again changes nothing', async () => {
    const database = usersDatabaseAsAdmin();
    const orgId = uniqueOrg('seed');
    const users = generateDemoUsers({ orgId });
    try {
      await seedUsers({ database, orgId, users });
      await seedUsers({ database, orgId, users });

      const [{ count }] = (await database.query<{ count: number }>(
        'SELECT count(*)::integer AS count FROM users WHERE org_id = $1',
        [orgId],
      )) as [{ count: number }];
      expect(count).toBe(users.length);
      const flagged = users.find((u) => u.id === WELL_KNOWN_DEMO_USERS.flagged)!;
      const parsed = parseUserRecord(orgId, flagged);
      if (!parsed.success) throw new Error(parsed.problems.join('; '));
      expect(await new PostgresUserDirectory(database).find(orgId, flagged.id)).toEqual(parsed.record);
    } finally {
      await database.close();
    }
  });
});
