import * as v from 'valibot';
import { DEFAULT_REQUEST_BUDGET, type RequestBudgetPolicy } from '#shared/domain/limits/request-budget.ts';
import { ConfigurationError, loadConfig, wholeNumberString } from '#shared/config/load-config.ts';

/**
 * The per-organization request budget every authenticated function spends (docs/contract.md §15):
 * `REQUEST_BUDGET_RATE` requests per second, bursts of `REQUEST_BUDGET_BURST`, the buckets in the
 * table `REQUEST_BUDGETS_TABLE_NAME`. CDK sets them from the `requestBudgetRate` and
 * `requestBudgetBurst` context values, the local stack from the developer's variables of the same
 * names (`npm start`); unset, the contract's 50 and 100.
 */
export const MAX_REQUEST_BUDGET_RATE = 10_000;
export const MAX_REQUEST_BUDGET_BURST = 20_000;

export const requestBudgetEnvironment = {
  REQUEST_BUDGETS_TABLE_NAME: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1))),
  REQUEST_BUDGET_RATE: wholeNumberString(
    'REQUEST_BUDGET_RATE',
    DEFAULT_REQUEST_BUDGET.ratePerSecond,
    MAX_REQUEST_BUDGET_RATE,
  ),
  REQUEST_BUDGET_BURST: wholeNumberString(
    'REQUEST_BUDGET_BURST',
    DEFAULT_REQUEST_BUDGET.burst,
    MAX_REQUEST_BUDGET_BURST,
  ),
};

/** `REQUEST_BUDGET_RATE` and `REQUEST_BUDGET_BURST`, validated (unset or empty: the contract's); throws a ConfigurationError naming them. */
export function requestBudgetPolicyFrom(env: Readonly<Record<string, string | undefined>>): RequestBudgetPolicy {
  const { REQUEST_BUDGET_RATE, REQUEST_BUDGET_BURST } = requestBudgetEnvironment;
  const config = loadConfig(v.object({ REQUEST_BUDGET_RATE, REQUEST_BUDGET_BURST }), { ...env });
  return { ratePerSecond: config.REQUEST_BUDGET_RATE, burst: config.REQUEST_BUDGET_BURST };
}

export interface RequestBudgetSettings {
  tableName: string;
  policy: RequestBudgetPolicy;
}

/**
 * The budget's settings, validated; undefined only outside Lambda when no table is named (a unit
 * test building a handler). In a Lambda function (`AWS_LAMBDA_FUNCTION_NAME` set) a missing table
 * stops the cold start: an API function never runs without its budget.
 */
export function requestBudgetSettingsFrom(
  env: Readonly<Record<string, string | undefined>> = process.env,
): RequestBudgetSettings | undefined {
  const config = loadConfig(v.object(requestBudgetEnvironment), { ...env });
  if (config.REQUEST_BUDGETS_TABLE_NAME === undefined) {
    if (env.AWS_LAMBDA_FUNCTION_NAME) {
      throw new ConfigurationError('Invalid configuration:\n  REQUEST_BUDGETS_TABLE_NAME is required');
    }
    return undefined;
  }
  return {
    tableName: config.REQUEST_BUDGETS_TABLE_NAME,
    policy: { ratePerSecond: config.REQUEST_BUDGET_RATE, burst: config.REQUEST_BUDGET_BURST },
  };
}
