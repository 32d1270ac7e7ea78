import {
  AdminAddUserToGroupCommand,
  AdminCreateUserCommand,
  AdminGetUserCommand,
  AdminListGroupsForUserCommand,
  AdminRemoveUserFromGroupCommand,
  CreateUserPoolClientCommand,
  DeleteUserPoolClientCommand,
  UserNotFoundException,
  type CognitoIdentityProviderClient,
} from '@aws-sdk/client-cognito-identity-provider';
import { COGNITO_SCOPE_PREFIX, ORGANIZATION_USER_ATTRIBUTE } from '#shared/config/cognito-identity.ts';
import { isRole, type Role } from '#shared/domain/identity/staff-roles.ts';
import type { Mode } from '#shared/domain/identity/tenant.ts';
import type { MachineClientCredentials, OrganizationUserPool } from './add-organization.ts';

/** Machine clients get short-lived access tokens: an hour, as the dashboard's. */
const ACCESS_TOKEN_MINUTES = 60;

/** The user pool through Cognito's own API (AdminCreateUser, CreateUserPoolClient, ...). */
export class CognitoUserPool implements OrganizationUserPool {
  constructor(
    private readonly cognito: CognitoIdentityProviderClient,
    private readonly userPoolId: string,
  ) {}

  async createMachineClient(input: {
    orgId: string;
    mode: Mode;
    scopes: readonly string[];
  }): Promise<MachineClientCredentials> {
    const { UserPoolClient: client } = await this.cognito.send(
      new CreateUserPoolClientCommand({
        UserPoolId: this.userPoolId,
        ClientName: `org-${input.orgId}-${input.mode === 'sandbox' ? 'sandbox' : 'machine'}`,
        GenerateSecret: true,
        AllowedOAuthFlowsUserPoolClient: true,
        AllowedOAuthFlows: ['client_credentials'],
        AllowedOAuthScopes: input.scopes.map((scope) => `${COGNITO_SCOPE_PREFIX}${scope}`),
        // No password or SRP flows: the client only gets tokens from the token endpoint. Refresh cannot be
        // switched off, and the client credentials grant issues no refresh token anyway.
        ExplicitAuthFlows: ['ALLOW_REFRESH_TOKEN_AUTH'],
        AccessTokenValidity: ACCESS_TOKEN_MINUTES,
        TokenValidityUnits: { AccessToken: 'minutes' },
        EnableTokenRevocation: true,
        PreventUserExistenceErrors: 'ENABLED',
        // Explicit: without a list Cognito lets a client write every standard attribute. custom:org_id is never in it.
        WriteAttributes: ['email'],
      }),
    );
    if (!client?.ClientId || !client.ClientSecret) throw new Error('Cognito created no client credentials');
    return { clientId: client.ClientId, clientSecret: client.ClientSecret };
  }

  async deleteMachineClient(clientId: string): Promise<void> {
    await this.cognito.send(new DeleteUserPoolClientCommand({ UserPoolId: this.userPoolId, ClientId: clientId }));
  }

  async organizationOfUser(email: string): Promise<string | null | undefined> {
    try {
      const user = await this.cognito.send(new AdminGetUserCommand({ UserPoolId: this.userPoolId, Username: email }));
      return user.UserAttributes?.find((attribute) => attribute.Name === ORGANIZATION_USER_ATTRIBUTE)?.Value ?? null;
    } catch (error) {
      if (error instanceof UserNotFoundException) return undefined;
      throw error;
    }
  }

  async inviteStaffMember(input: { email: string; orgId: string }): Promise<void> {
    await this.cognito.send(
      new AdminCreateUserCommand({
        UserPoolId: this.userPoolId,
        // The pool signs in by e-mail: Cognito makes the username a UUID and keeps the address as the alias.
        Username: input.email,
        UserAttributes: [
          { Name: 'email', Value: input.email },
          // The invitation goes to this address; whoever signs in with it has received it.
          { Name: 'email_verified', Value: 'true' },
          { Name: ORGANIZATION_USER_ATTRIBUTE, Value: input.orgId },
        ],
        DesiredDeliveryMediums: ['EMAIL'],
      }),
    );
  }

  async setStaffRole(input: { email: string; role: Role }): Promise<void> {
    const user = { UserPoolId: this.userPoolId, Username: input.email };
    await this.cognito.send(new AdminAddUserToGroupCommand({ ...user, GroupName: input.role }));
    // Their groups, in pages of up to 60: every other role's goes (a group that is no role stays).
    let nextToken: string | undefined;
    do {
      const page = await this.cognito.send(new AdminListGroupsForUserCommand({ ...user, NextToken: nextToken }));
      for (const group of page.Groups ?? []) {
        if (isRole(group.GroupName) && group.GroupName !== input.role) {
          await this.cognito.send(new AdminRemoveUserFromGroupCommand({ ...user, GroupName: group.GroupName }));
        }
      }
      nextToken = page.NextToken;
    } while (nextToken);
  }
}
