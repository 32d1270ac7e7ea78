import { originVerifySecretsFrom } from '#shared/config/origin-verify.ts';
import type { ApiHandlerOptions } from '#shared/http/api-handler.ts';
import type { ApiFunctionName } from '#shared/config/function-needs.ts';
import { apiRoutes } from '#shared/config/api-routes.ts';
import { loadFunctionConfig } from './function-config.ts';
import { tokenVerifierFrom } from './identity.ts';
import { organizationConcurrencyFromEnvironment, requestBudgetFromEnvironment } from './limits.ts';

/** What every authenticated route checks before its own work: the edge's header, the token, the budget, the slot. */
export type ApiGuards = Pick<
  ApiHandlerOptions<undefined>,
  'verifyToken' | 'requestBudget' | 'concurrency' | 'originVerifySecrets' | 'sandboxOnly'
>;

/**
 * The guards of an API function, built once per cold start from its validated configuration and
 * the environment CDK (or the local stack) gave it. An entry file spreads them into
 * createApiHandler, so none of them can be left out by one route alone.
 */
export function apiGuards(config: Parameters<typeof tokenVerifierFrom>[0]): ApiGuards {
  return {
    verifyToken: tokenVerifierFrom(config),
    requestBudget: requestBudgetFromEnvironment(),
    concurrency: organizationConcurrencyFromEnvironment(),
    originVerifySecrets: originVerifySecretsFrom(),
  };
}

/** An authenticated API function's configuration (from its declared needs) and its guards, built once per cold start. */
export function apiFunction<TName extends ApiFunctionName>(name: TName) {
  const config = loadFunctionConfig(name);
  // A sandbox-only route says so in the route table, the one place its 404 for live tokens comes from.
  const sandboxOnly = apiRoutes.some((route) => route.name === name && route.sandboxOnly === true);
  return { config, guards: { ...apiGuards(config), ...(sandboxOnly && { sandboxOnly }) } };
}
