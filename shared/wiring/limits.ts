import { containerDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import { DynamoDbConcurrencySlots } from '#shared/adapters/dynamodb/limits/concurrency-slots.ts';
import { DynamoDbRequestBudgetBuckets } from '#shared/adapters/dynamodb/limits/request-budget-buckets.ts';
import { concurrencySettingsFrom } from '#shared/config/limits/concurrency.ts';
import { requestBudgetSettingsFrom } from '#shared/config/limits/request-budget.ts';
import { LeasedRequestBudget } from '#shared/domain/limits/request-budget.ts';
import type { OrganizationConcurrency } from '#shared/http/limits/concurrency.ts';

/** The budget the environment configures (shared/config/limits/request-budget.ts), built once per cold start. */
export function requestBudgetFromEnvironment(): LeasedRequestBudget | undefined {
  const settings = requestBudgetSettingsFrom();
  if (!settings) return undefined;
  const buckets = new DynamoDbRequestBudgetBuckets(containerDynamoDbClients().documents, settings.tableName);
  return new LeasedRequestBudget(buckets, settings.policy);
}

/** The limiter the environment configures (shared/config/limits/concurrency.ts), built once per cold start. */
export function organizationConcurrencyFromEnvironment(): OrganizationConcurrency | undefined {
  const settings = concurrencySettingsFrom();
  if (!settings) return undefined;
  return {
    slots: new DynamoDbConcurrencySlots(containerDynamoDbClients().documents, settings.tableName),
    policy: settings.policy,
  };
}
