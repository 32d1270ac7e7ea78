import type { TestProject } from 'vitest/node';
import { setUpLocalStack } from '#test/support/local-stack-setup.ts';

/**
 * One local stack for the whole integration tier. Tests read `inject('baseUrl' | 'endpoints' |
 * 'localEnv')`; copying `localEnv` into process.env gives their own SDK clients the same endpoints
 * and `tokenFor` (api-client.ts) the identity provider's key (LOCAL_KEYS_DIR) and issuer (JWT_ISSUER).
 */
export default function setup(project: TestProject): Promise<() => Promise<void>> {
  return setUpLocalStack(project, 'test');
}
