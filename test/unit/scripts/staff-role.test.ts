import {
  AdminAddUserToGroupCommand,
  AdminGetUserCommand,
  AdminListGroupsForUserCommand,
  AdminRemoveUserFromGroupCommand,
  CognitoIdentityProviderClient,
  UserNotFoundException,
} from '@aws-sdk/client-cognito-identity-provider';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '#scripts/command-line.ts';
import { CognitoUserPool } from '#scripts/org-add/cognito-user-pool.ts';
import { parseStaffRoleArguments } from '#scripts/staff-role/arguments.ts';
import { NotStaffError, setStaffRole } from '#scripts/staff-role/set-staff-role.ts';

const cognito = mockClient(CognitoIdentityProviderClient);
const USER_POOL_ID = 'eu-west-1_AbCdEf123';
const user = { UserPoolId: USER_POOL_ID, Username: 'ada@acme.example' };
const deps = () => ({
  userPool: new CognitoUserPool(new CognitoIdentityProviderClient({ region: 'eu-west-1' }), USER_POOL_ID),
});

beforeEach(() => {
  cognito.reset();
  cognito.on(AdminGetUserCommand).resolves({ UserAttributes: [{ Name: 'custom:org_id', Value: 'acme' }] });
  cognito.on(AdminAddUserToGroupCommand).resolves({});
  cognito.on(AdminRemoveUserFromGroupCommand).resolves({});
});

describe('staff:role (setStaffRole with Cognito)', () => {
  it('puts the staff member in the role’s group and out of every other role’s, leaving other groups alone', async () => {
    cognito
      .on(AdminListGroupsForUserCommand)
      .resolvesOnce({ Groups: [{ GroupName: 'admin' }, { GroupName: 'auditor' }], NextToken: 'page-2' })
      .resolvesOnce({ Groups: [{ GroupName: 'finance-team' }, { GroupName: 'viewer' }, { GroupName: 'operator' }] });

    const result = await setStaffRole({ email: 'ada@acme.example', role: 'auditor' }, deps());

    expect(result).toEqual({ orgId: 'acme' });
    expect(cognito).toHaveReceivedCommandWith(AdminAddUserToGroupCommand, { ...user, GroupName: 'auditor' });
    expect(cognito).toHaveReceivedCommandWith(AdminListGroupsForUserCommand, { ...user, NextToken: 'page-2' });
    const removed = cognito.commandCalls(AdminRemoveUserFromGroupCommand).map((call) => call.args[0].input.GroupName);
    expect(removed.sort()).toEqual(['admin', 'operator', 'viewer']);
  });

  it('changes nothing for someone who is not a user of the pool, or has no organization', async () => {
    cognito.on(AdminGetUserCommand).rejectsOnce(new UserNotFoundException({ message: 'no', $metadata: {} }));
    await expect(setStaffRole({ email: 'ada@acme.example', role: 'admin' }, deps())).rejects.toBeInstanceOf(
      NotStaffError,
    );
    cognito.on(AdminGetUserCommand).resolves({ UserAttributes: [{ Name: 'email', Value: 'ada@acme.example' }] });
    await expect(setStaffRole({ email: 'ada@acme.example', role: 'admin' }, deps())).rejects.toBeInstanceOf(
      NotStaffError,
    );

    expect(cognito).not.toHaveReceivedCommand(AdminAddUserToGroupCommand);
    expect(cognito).not.toHaveReceivedCommand(AdminRemoveUserFromGroupCommand);
  });
});

describe('staff:role arguments', () => {
  it('reads the e-mail (lower-cased), the role and the pool, flags or environment', () => {
    expect(parseStaffRoleArguments(['Ada@Acme.example', 'viewer'], { USER_POOL_ID, AWS_REGION: 'eu-west-1' })).toEqual({
      email: 'ada@acme.example',
      role: 'viewer',
      userPoolId: USER_POOL_ID,
      region: 'eu-west-1',
    });
    expect(parseStaffRoleArguments(['a@b.example', 'admin', '--user-pool-id', 'p', '--region', 'r'], {})).toEqual({
      email: 'a@b.example',
      role: 'admin',
      userPoolId: 'p',
      region: 'r',
    });
  });

  it.each([
    { argv: ['a@b.example'], message: /e-mail address and a role/ },
    { argv: ['a@b.example', 'owner'], message: /admin, operator, auditor, viewer/ },
    { argv: ['not-an-address', 'admin'], message: /not an e-mail/ },
  ])('refuses $argv', ({ argv, message }) => {
    expect(() => parseStaffRoleArguments(argv, { USER_POOL_ID })).toThrow(UsageError);
    expect(() => parseStaffRoleArguments(argv, { USER_POOL_ID })).toThrow(message);
  });

  it('needs the user pool', () => {
    expect(() => parseStaffRoleArguments(['a@b.example', 'admin'], {})).toThrow(/--user-pool-id/);
  });
});
