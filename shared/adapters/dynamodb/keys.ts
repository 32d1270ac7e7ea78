/**
 * Key parts every table shares. Everything an organization owns lives under its partition key, so
 * no query can reach another tenant's items (see README "Table design").
 */
export const organizationPartition = (orgId: string): string => `ORG#${orgId}`;

/** DynamoDB TTL attributes are epoch seconds. */
export const epochSeconds = (iso: string): number => Math.floor(Date.parse(iso) / 1000);
