import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Tenant } from '#shared/domain/identity/tenant.ts';

export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2 & { statusCode: number; headers: Record<string, string> };
export type { Context as LambdaContext };

export type { Scope } from '#shared/domain/identity/staff-roles.ts';

/** The authenticated caller, from a verified bearer token. */
export interface Principal {
  /** The organization and the mode (live or sandbox) the token speaks for. */
  tenant: Tenant;
  /**
   * `tenantKey(tenant)`: the key every store, limiter and idempotency item files this caller's
   * data under, set once where the token is verified. Use cases still name it `orgId`: what they
   * receive there is this key (the organization's id in live).
   */
  tenantKey: string;
  /** Display name of the organization, from the optional organization-name claim. */
  orgName: string | undefined;
  scopes: ReadonlySet<string>;
  subject: string | undefined;
  /** The OAuth client the token was issued to, when it says (`client_id` or `azp`). */
  clientId: string | undefined;
}
