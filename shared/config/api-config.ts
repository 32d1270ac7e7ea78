import * as v from 'valibot';
import { authEnvironment } from './auth-config.ts';
import { ConfigurationError, loadConfig, optionalString } from './load-config.ts';

/**
 * Loads an API function's configuration: the shared token settings plus the function's own
 * variables, validated together at cold start.
 */
export function loadApiConfig<TEntries extends v.ObjectEntries>(entries: TEntries) {
  const config = loadConfig(v.object({ ...authEnvironment, ORG_NAME_CLAIM: optionalString('org_name'), ...entries }));
  if ((config.JWKS_URL === undefined) === (config.JWKS_JSON === undefined)) {
    throw new ConfigurationError(
      'Invalid configuration:\n  set exactly one of JWKS_URL (remote key set) or JWKS_JSON (inline key set)',
    );
  }
  return config;
}
