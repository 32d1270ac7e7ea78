import * as v from 'valibot';
import { authEnvironment, authEnvironmentProblems } from './auth-config.ts';
import { ConfigurationError, loadConfig, optionalString } from './load-config.ts';

/**
 * Loads an API function's configuration: the shared token settings plus the function's own
 * variables, validated together at cold start.
 */
export function loadApiConfig<TEntries extends v.ObjectEntries>(entries: TEntries) {
  const config = loadConfig(v.object({ ...authEnvironment, ORG_NAME_CLAIM: optionalString('org_name'), ...entries }));
  const problems = authEnvironmentProblems(config);
  if (problems.length > 0) throw new ConfigurationError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  return config;
}
