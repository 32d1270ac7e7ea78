/**
 * DynamoDB table shapes, as plain data shared by the CDK data construct and the local stack
 * (which creates the same tables in DynamoDB Local). See README "Table design".
 */
export interface KeySchema {
  partitionKey: string;
  sortKey?: string;
}

export interface TableDefinition extends KeySchema {
  /** Logical id in CDK and base of the local table name. */
  id: string;
  /** Environment variable through which functions receive the table name. */
  envVar: string;
  timeToLiveAttribute: string;
  globalSecondaryIndexes: ReadonlyArray<GlobalSecondaryIndexDefinition>;
}

export interface GlobalSecondaryIndexDefinition extends KeySchema {
  indexName: string;
  /** Non-key attributes the index carries (projection INCLUDE); absent: every attribute (ALL). */
  include?: readonly string[];
}

/** Onboarding tokens (`ORG#{org}` / `TOKEN#{createdAt}#{tokenId}`) and their e-mail guards (`ORG#{org}` / `EMAIL#{email}`). */
export const onboardingTokensTable = {
  id: 'OnboardingTokens',
  envVar: 'ONBOARDING_TOKENS_TABLE_NAME',
  partitionKey: 'pk',
  sortKey: 'sk',
  timeToLiveAttribute: 'ttl',
  globalSecondaryIndexes: [],
} as const satisfies TableDefinition;

/**
 * Report jobs (`JOB#{jobId}` / `JOB`), open-job guards (`ORG#{org}` / `OPEN_JOB#{userId}`) and
 * the per-organization rate-limit bucket (`ORG#{org}` / `RATE_LIMIT#report-create`).
 * `openJobsByAge` is sparse: only open-job guards carry `sweepPk`, so the sweep reads open jobs only.
 * `jobsByOrganization` is sparse too: only jobs carry `orgJobsPk` (`ORG#{org}`) and `orgJobsSk`
 * (`{createdAt}#{jobId}`), so the dashboard lists an organization's jobs newest first.
 */
export const reportJobsTable = {
  id: 'ReportJobs',
  envVar: 'REPORT_JOBS_TABLE_NAME',
  partitionKey: 'pk',
  sortKey: 'sk',
  timeToLiveAttribute: 'ttl',
  globalSecondaryIndexes: [
    { indexName: 'openJobsByAge', partitionKey: 'sweepPk', sortKey: 'sweepSk' },
    { indexName: 'jobsByOrganization', partitionKey: 'orgJobsPk', sortKey: 'orgJobsSk' },
  ],
} as const satisfies TableDefinition;

/**
 * The DynamoDB Users table of releases before users moved to SQL (`ORG#{org}` / `USER#{id}`),
 * no longer deployed: `npm run users:migrate-from-dynamodb` reads it once by its key shape.
 */
export const legacyUsersTable = {
  id: 'Users',
  partitionKey: 'pk',
  sortKey: 'sk',
} as const;

/** Powertools idempotency records; the key hashes organization, route and Idempotency-Key. */
export const idempotencyTable = {
  id: 'Idempotency',
  envVar: 'IDEMPOTENCY_TABLE_NAME',
  partitionKey: 'id',
  timeToLiveAttribute: 'expiration',
  globalSecondaryIndexes: [],
} as const satisfies TableDefinition;

/**
 * Webhook endpoints (`ORG#{org}` / `ENDPOINT#{id}`), the organization's endpoint count
 * (`ORG#{org}` / `ENDPOINT_COUNT`), and the delivery log, one item per message to an endpoint
 * (`ORG#{org}#ENDPOINT#{id}` / `DELIVERY#{createdAt}#{messageId}`, newest first by a reverse
 * query, expiring after 30 days).
 */
/** The Webhooks table's partitions of pending events (shared/adapters/dynamodb/pending-webhook-events.ts), `PENDING_EVENTS#{shard}`. */
export const PENDING_EVENTS_PARTITION_PREFIX = 'PENDING_EVENTS#';

export const webhooksTable = {
  id: 'Webhooks',
  envVar: 'WEBHOOKS_TABLE_NAME',
  partitionKey: 'pk',
  sortKey: 'sk',
  timeToLiveAttribute: 'ttl',
  globalSecondaryIndexes: [],
} as const satisfies TableDefinition;

/**
 * The audit trail (`ORG#{org}` / `EVENT#{occurredAt}#{eventId}`, newest first by a reverse query),
 * append-only: functions may only PutItem (lib/bind-table.ts `append`). `byTarget`
 * (`targetPk` = `ORG#{org}#TARGET#{targetId}`) lists one resource's history. Events expire after
 * the retention (400 days by default, context `auditRetentionDays`).
 */
export const auditEventsTable = {
  id: 'AuditEvents',
  envVar: 'AUDIT_EVENTS_TABLE_NAME',
  partitionKey: 'pk',
  sortKey: 'sk',
  timeToLiveAttribute: 'ttl',
  globalSecondaryIndexes: [{ indexName: 'byTarget', partitionKey: 'targetPk', sortKey: 'sk' }],
} as const satisfies TableDefinition;

/**
 * Each organization's request budget (`ORG#{org}`): one item holding its token bucket as GCRA
 * state (`tat`, shared/domain/limits/request-budget.ts), and its concurrency slots
 * (`ORG#{org}#CONCURRENCY`: the slots its requests hold, shared/adapters/dynamodb/limits/concurrency-slots.ts).
 * Every authenticated function may UpdateItem them and nothing else. A bucket expires an hour after it
 * was last full, a slots item an hour after its latest slot's deadline.
 */
export const requestBudgetsTable = {
  id: 'RequestBudgets',
  envVar: 'REQUEST_BUDGETS_TABLE_NAME',
  partitionKey: 'pk',
  timeToLiveAttribute: 'ttl',
  globalSecondaryIndexes: [],
} as const satisfies TableDefinition;

export const allTables: readonly TableDefinition[] = [
  onboardingTokensTable,
  reportJobsTable,
  idempotencyTable,
  webhooksTable,
  auditEventsTable,
  requestBudgetsTable,
];
