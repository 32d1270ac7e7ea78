import { Construct } from 'constructs';
import {
  allTables,
  auditEventsTable,
  idempotencyTable,
  onboardingTokensTable,
  reportJobsTable,
  requestBudgetsTable,
  webhooksTable,
} from '#shared/config/table-definitions.ts';
import { ServiceTable } from './service-table.ts';

const knownTables = [
  onboardingTokensTable,
  reportJobsTable,
  idempotencyTable,
  webhooksTable,
  auditEventsTable,
  requestBudgetsTable,
] as const;
export type TableId = (typeof knownTables)[number]['id'];

/**
 * The service's DynamoDB tables, one per entry of `allTables` (shared/config/table-definitions.ts):
 * on-demand, point-in-time recovery, TTL, AWS-managed encryption, retained on stack deletion.
 * Users are not among them: they live in the users database (lib/users-database-construct.ts).
 */
export class DataConstruct extends Construct {
  /** Every table by its definition id, e.g. `tables.OnboardingTokens`. */
  readonly tables: Readonly<Record<TableId, ServiceTable>>;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const byId = new Map(allTables.map((definition) => [definition.id, new ServiceTable(this, definition)]));
    const table = (tableId: TableId): ServiceTable => {
      const found = byId.get(tableId);
      if (!found) throw new Error(`Table "${tableId}" is not in allTables (shared/config/table-definitions.ts)`);
      return found;
    };
    this.tables = Object.fromEntries(knownTables.map(({ id: tableId }) => [tableId, table(tableId)])) as Record<
      TableId,
      ServiceTable
    >;
  }

  get onboardingTokens(): ServiceTable {
    return this.tables.OnboardingTokens;
  }

  get reportJobs(): ServiceTable {
    return this.tables.ReportJobs;
  }

  get idempotency(): ServiceTable {
    return this.tables.Idempotency;
  }
}
