import { AsyncLocalStorage } from 'node:async_hooks';
import * as v from 'valibot';
import { authEnvironment } from '#shared/config/auth-config.ts';
import {
  apiRoutes,
  emailEventsFunction,
  fallbackRoute,
  reportPipelineFunctions,
  sandboxWipeFunction,
  webhookDeliveryFunction,
  webhookRepublishFunction,
} from '#shared/config/api-routes.ts';
import { functionNeeds, type FunctionName } from '#shared/config/function-needs.ts';
import { concurrencyEnvironment } from '#shared/config/limits/concurrency.ts';
import { requestBudgetEnvironment } from '#shared/config/limits/request-budget.ts';
import { functionEnvironment } from '#shared/wiring/function-config.ts';
import type { HandlerLoader } from './handler-modules.ts';

/**
 * What Lambda and CDK give every function whatever it needs: the runtime's `AWS_*` (region,
 * credentials, here also the emulators' endpoints), the logger's, tracer's and metrics' settings.
 */
const everyFunctionVariables = new Set([
  'S3_FORCE_PATH_STYLE',
  'POWERTOOLS_SERVICE_NAME',
  'POWERTOOLS_METRICS_NAMESPACE',
  'POWERTOOLS_DEV',
  'LOG_LEVEL',
  'STAGE',
]);
const isEveryFunctionVariable = (name: string): boolean => name.startsWith('AWS_') || everyFunctionVariables.has(name);

/** What CDK gives every authenticated route besides its needs: the token settings, the request budget, the concurrency limits. */
const authenticatedRouteVariables = [
  ...Object.keys(authEnvironment),
  'ORG_NAME_CLAIM',
  'ORIGIN_VERIFY_SECRETS',
  ...Object.keys(requestBudgetEnvironment),
  ...Object.keys(concurrencyEnvironment),
];

interface LocalFunction {
  name: FunctionName | typeof fallbackRoute.name;
  entry: string;
  authenticated: boolean;
}

/**
 * Every function the local stack runs, by entry file (both webhook lanes run the one delivery function). Not the
 * deploy-time ones (it migrates its PostgreSQL itself, users-postgres.ts, signs with key files and rolls nothing out)
 * nor the Cognito trigger (its identity provider is oidc-provider): their needs are not checked here.
 */
const localFunctions: readonly LocalFunction[] = [
  ...apiRoutes.map((route) => ({
    name: route.name as FunctionName,
    entry: route.entry,
    authenticated: route.public !== true,
  })),
  { ...fallbackRoute, authenticated: false },
  ...[
    ...Object.values(reportPipelineFunctions),
    webhookDeliveryFunction,
    webhookRepublishFunction,
    emailEventsFunction,
    sandboxWipeFunction,
  ].map((fn) => ({ name: fn.name, entry: fn.entry, authenticated: false })),
];

/** The names of the variables one function is given: its needs' (shared/config/function-needs.ts), and a route's guards'. */
export function functionVariableNames(fn: LocalFunction): ReadonlySet<string> {
  const needs = fn.name in functionNeeds ? Object.keys(functionEnvironment(fn.name as FunctionName)) : [];
  return new Set([...needs, ...(fn.authenticated ? authenticatedRouteVariables : [])]);
}

/**
 * One process hosts every function here; the local stack still sets the union of their variables.
 * It reads the declared needs of each function it runs and refuses to start when the union misses a
 * variable one of them requires: the same declaration CDK grants from.
 */
export function checkFunctionEnvironments(env: Readonly<Record<string, string>>): void {
  const problems: string[] = [];
  const declared = localFunctions.map((fn) => fn.name).filter((name): name is FunctionName => name in functionNeeds);
  for (const name of declared) {
    const result = v.safeParse(v.object(functionEnvironment(name) as v.ObjectEntries), env, { abortEarly: false });
    if (result.success) continue;
    for (const issue of result.issues) problems.push(`${name}: ${v.getDotPath(issue) ?? '(environment)'}`);
  }
  if (problems.length > 0)
    throw new Error(`the local environment misses what these functions need:\n  ${problems.join('\n  ')}`);
}

/** The stack's variables one function may not see: those of the union its declaration does not name. */
type HiddenVariables = ReadonlySet<string>;

const runningFunction = new AsyncLocalStorage<HiddenVariables>();

/**
 * Gives each function the environment its needs declare, as CDK does, although one process hosts
 * them all: the import of its entry file (its cold start, where its configuration is read) and each
 * invocation run with a `process.env` that shows the process's own variables (PATH, HOME) and, of
 * the stack's `env`, only the function's. So a function whose declaration misses a need fails here
 * as in AWS. The stack's own code, outside any function, sees everything. Returns the undo.
 */
export function isolateFunctionEnvironments(
  env: Readonly<Record<string, string>>,
  loadHandler: HandlerLoader,
): { loadHandler: HandlerLoader; restore: () => Promise<void> } {
  const hiddenByEntry = new Map<string, HiddenVariables>();
  for (const fn of localFunctions) {
    const given = functionVariableNames(fn);
    const hidden = Object.keys(env).filter((name) => !isEveryFunctionVariable(name) && !given.has(name));
    hiddenByEntry.set(fn.entry, new Set(hidden));
  }
  const processEnv = process.env;
  const hidden = (name: string | symbol): boolean =>
    typeof name === 'string' && (runningFunction.getStore()?.has(name) ?? false);
  process.env = new Proxy(processEnv, {
    get: (target, name) => (hidden(name) ? undefined : (Reflect.get(target, name) as string | undefined)),
    has: (target, name) => !hidden(name) && Reflect.has(target, name),
    ownKeys: (target) => Reflect.ownKeys(target).filter((name) => !hidden(name)),
    getOwnPropertyDescriptor: (target, name) =>
      hidden(name) ? undefined : Reflect.getOwnPropertyDescriptor(target, name),
  });
  return {
    loadHandler: async (entry) => {
      const hiddenVariables = hiddenByEntry.get(entry);
      // A handler no function of the stack has (a test's own) sees the whole environment.
      if (!hiddenVariables) return loadHandler(entry);
      const handler = await runningFunction.run(hiddenVariables, () => loadHandler(entry));
      return (event, context) => runningFunction.run(hiddenVariables, () => handler(event, context));
    },
    restore: () => {
      process.env = processEnv;
      return Promise.resolve();
    },
  };
}
