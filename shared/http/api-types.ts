import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';

export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2 & { statusCode: number; headers: Record<string, string> };
export type { Context as LambdaContext };

export type { Scope } from '#shared/domain/identity/staff-roles.ts';

/** The authenticated caller, from a verified bearer token. */
export interface Principal {
  orgId: string;
  /** Display name of the organization, from the optional organization-name claim. */
  orgName: string | undefined;
  scopes: ReadonlySet<string>;
  subject: string | undefined;
  /** The OAuth client the token was issued to, when it says (`client_id` or `azp`). */
  clientId: string | undefined;
}
