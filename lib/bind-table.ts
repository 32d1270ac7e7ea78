import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { ServiceTable } from './service-table.ts';

/** `append`: PutItem alone, for an append-only table (the audit trail): no update, no delete. */
export type TableAccessMode = 'read' | 'write' | 'readWrite' | 'append';

/**
 * Item-level actions only: no Scan (lists are Queries), no table management. Transactions need no
 * action of their own: IAM authorizes each item of a TransactWriteItems / TransactGetItems call
 * against PutItem, UpdateItem, DeleteItem, ConditionCheckItem and GetItem.
 */
export const tableReadActions = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:ConditionCheckItem',
];
export const tableWriteActions = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
];

/**
 * Gives a function exactly the access it needs to one table and tells it the table's name, in one
 * call. Reads may Query the table's indexes, named one by one (no `index/*` wildcard).
 * @param options.envVar environment variable receiving the table name; default: the table definition's
 * @param options.indexes the indexes the function may Query; default: every index of the table
 */
export function bindTable(
  fn: LambdaFunction,
  table: ServiceTable,
  accessMode: TableAccessMode,
  options: { envVar?: string; indexes?: readonly string[] } = {},
): void {
  const envVar = options.envVar ?? table.definition.envVar;
  const indexNames = options.indexes ?? table.indexNames;
  const unknown = indexNames.filter((name) => !table.indexNames.includes(name));
  if (unknown.length > 0) throw new Error(`table ${table.definition.id} has no index ${unknown.join(', ')}`);
  const reads = accessMode === 'read' || accessMode === 'readWrite';
  const writes = accessMode === 'write' || accessMode === 'readWrite';
  const actions =
    accessMode === 'append'
      ? ['dynamodb:PutItem']
      : [...new Set([...(reads ? tableReadActions : []), ...(writes ? tableWriteActions : [])])];
  fn.addToRolePolicy(new PolicyStatement({ actions, resources: [table.tableArn] }));
  if (reads && indexNames.length > 0) {
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: indexNames.map((indexName) => `${table.tableArn}/index/${indexName}`),
      }),
    );
  }
  fn.addEnvironment(envVar, table.tableName);
}
