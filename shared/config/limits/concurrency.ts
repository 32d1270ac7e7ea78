import * as v from 'valibot';
import { DEFAULT_CONCURRENCY, type ConcurrencyPolicy } from '#shared/domain/limits/concurrency.ts';
import { ConfigurationError, loadConfig, wholeNumberString } from '#shared/config/load-config.ts';
import { requestBudgetsTable } from '#shared/config/table-definitions.ts';

/**
 * The per-organization concurrency limit every authenticated function holds (docs/contract.md
 * §25): `CONCURRENCY_PER_ORGANIZATION` requests in flight on all routes,
 * `DATABASE_CONCURRENCY_PER_ORGANIZATION` on the routes that run database statements, the slots in
 * the request budget's table (`REQUEST_BUDGETS_TABLE_NAME`). CDK sets them from the
 * `concurrencyPerOrganization` and `databaseConcurrencyPerOrganization` context values, the local
 * stack from the developer's variables of the same names (`npm start`); unset, the contract's 20 and 4.
 */
export const MAX_CONCURRENCY_PER_ORGANIZATION = 1_000;

export const concurrencyEnvironment = {
  CONCURRENCY_PER_ORGANIZATION: wholeNumberString(
    'CONCURRENCY_PER_ORGANIZATION',
    DEFAULT_CONCURRENCY.perOrganization,
    MAX_CONCURRENCY_PER_ORGANIZATION,
  ),
  DATABASE_CONCURRENCY_PER_ORGANIZATION: wholeNumberString(
    'DATABASE_CONCURRENCY_PER_ORGANIZATION',
    DEFAULT_CONCURRENCY.databasePerOrganization,
    MAX_CONCURRENCY_PER_ORGANIZATION,
  ),
};

/** The two limits, validated (unset or empty: the contract's); throws a ConfigurationError naming them. */
export function concurrencyPolicyFrom(env: Readonly<Record<string, string | undefined>>): ConcurrencyPolicy {
  const config = loadConfig(v.object(concurrencyEnvironment), { ...env });
  return {
    perOrganization: config.CONCURRENCY_PER_ORGANIZATION,
    databasePerOrganization: config.DATABASE_CONCURRENCY_PER_ORGANIZATION,
  };
}

export interface ConcurrencySettings {
  tableName: string;
  policy: ConcurrencyPolicy;
}

/**
 * The limiter's settings; undefined only outside Lambda when no table is named (a unit test
 * building a handler). In a Lambda function a missing table stops the cold start.
 */
export function concurrencySettingsFrom(
  env: Readonly<Record<string, string | undefined>> = process.env,
): ConcurrencySettings | undefined {
  const policy = concurrencyPolicyFrom(env);
  const tableName = env[requestBudgetsTable.envVar]?.trim();
  if (!tableName) {
    if (env.AWS_LAMBDA_FUNCTION_NAME) {
      throw new ConfigurationError(`Invalid configuration:\n  ${requestBudgetsTable.envVar} is required`);
    }
    return undefined;
  }
  return { tableName, policy };
}
